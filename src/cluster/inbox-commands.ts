/**
 * The commands an execution's inbox carries (inbox.ts) besides its turns: what an API node asks of
 * the worker that holds the execution. Parsed when requested and again when taken.
 */
import { z } from 'zod';
import { HarnessName } from '../core/outcome.js';

/** Cancel the execution; end its wait for a quota reset now; switch it to a harness by hand. */
export const InboxCommand = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('cancel') }),
  z.strictObject({ kind: z.literal('resume') }),
  z.strictObject({
    kind: z.literal('switch'),
    harness: HarnessName,
    model: z.string().min(1).optional(),
    /** Who asked: `cli (alice)`, `workbench`, `api`. */
    by: z.string().min(1),
    reason: z.string().optional(),
  }),
]);
export type InboxCommand = z.infer<typeof InboxCommand>;

/** A command as its holder takes it: its id (increasing in the order requested) and when it was asked. */
export const TakenCommand = z.object({
  id: z.number().int().positive(),
  command: InboxCommand,
  requestedAt: z.string(),
});
export type TakenCommand = z.infer<typeof TakenCommand>;
