/**
 * The subset of `gh`'s command line the fake forge understands, parsed strictly (an unknown flag is
 * an error, as in gh) and validated with zod:
 *   gh pr create --title T --body B [--base X] [--head Y]
 *   gh pr list [--head H] [--base X] [--state open|closed|merged|all] [--json f1,f2]
 *   gh pr view [<number>] [--json f1,f2]
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ForgeError } from './store.js';

/** The fields `--json` can ask for, as gh names them. */
export const JSON_FIELDS = [
  'baseRefName',
  'body',
  'createdAt',
  'headRefName',
  'number',
  'state',
  'title',
  'url',
] as const;
export type JsonField = (typeof JSON_FIELDS)[number];

const jsonFields = z
  .string()
  .transform((text) => text.split(',').map((field) => field.trim()))
  .superRefine((fields, ctx) => {
    for (const field of fields) {
      if (!(JSON_FIELDS as readonly string[]).includes(field)) {
        ctx.addIssue({
          code: 'custom',
          message: `Unknown JSON field: ${JSON.stringify(field)}\nAvailable fields:\n${JSON_FIELDS.map((f) => `  ${f}`).join('\n')}`,
        });
      }
    }
  })
  .transform((fields) => fields as JsonField[]);

const Create = z.object({
  title: z.string().min(1),
  body: z.string(),
  base: z.string().min(1).optional(),
  head: z.string().min(1).optional(),
});
const List = z.object({
  head: z.string().min(1).optional(),
  base: z.string().min(1).optional(),
  state: z.enum(['open', 'closed', 'merged', 'all']).default('open'),
  json: jsonFields.optional(),
});
const View = z.object({
  number: z
    .string()
    .regex(/^[1-9]\d*$/, 'the fake forge finds a pull request by its number only')
    .transform(Number)
    .optional(),
  json: jsonFields.optional(),
});

/** One understood `gh` command. */
export type ForgeCommand =
  | ({ verb: 'create' } & z.infer<typeof Create>)
  | ({ verb: 'list' } & z.infer<typeof List>)
  | ({ verb: 'view' } & z.infer<typeof View>);

const OPTIONS = {
  create: {
    title: { type: 'string', short: 't' },
    body: { type: 'string', short: 'b' },
    base: { type: 'string', short: 'B' },
    head: { type: 'string', short: 'H' },
  },
  list: {
    head: { type: 'string', short: 'H' },
    base: { type: 'string', short: 'B' },
    state: { type: 'string', short: 's' },
    json: { type: 'string' },
  },
  view: { json: { type: 'string' } },
} as const;

function validated<S extends z.ZodType>(schema: S, values: unknown): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const flag = issue?.code !== 'custom' && issue?.path[0] !== 'number' ? issue?.path[0] : undefined;
  const where = typeof flag === 'string' ? `--${flag}: ` : '';
  throw new ForgeError(`${where}${issue?.message ?? 'invalid arguments'}`);
}

/** Parses `gh`'s argv (without the binary name); throws ForgeError with gh-like messages. */
export function parseForgeArgv(argv: readonly string[]): ForgeCommand {
  const [group, verb, ...rest] = argv;
  if (group !== 'pr')
    throw new ForgeError(`unknown command ${JSON.stringify(group ?? '')} for "gh" (the fake forge knows only "pr")`);
  if (verb !== 'create' && verb !== 'list' && verb !== 'view') {
    throw new ForgeError(
      `unknown command ${JSON.stringify(verb ?? '')} for "gh pr" (the fake forge knows create, list, view)`,
    );
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...rest], options: OPTIONS[verb], allowPositionals: verb === 'view', strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    throw new ForgeError(unknown ? `unknown flag: ${unknown[1]}` : (message.split('\n')[0] ?? message));
  }
  const { values, positionals } = parsed;
  switch (verb) {
    case 'create':
      if (values.title === undefined || values.body === undefined) {
        throw new ForgeError(
          'must provide `--title` and `--body` (or `--fill` or `fill-first` or `--fillverbose`) when not running interactively',
        );
      }
      return { verb, ...validated(Create, values) };
    case 'list':
      return { verb, ...validated(List, values) };
    case 'view':
      if (positionals.length > 1) throw new ForgeError(`accepts at most 1 arg(s), received ${positionals.length}`);
      return {
        verb,
        ...validated(View, { ...values, ...(positionals[0] !== undefined && { number: positionals[0] }) }),
      };
  }
}
