/**
 * Runs the request an opened execution's prompt asked for (detail/state.ts names it with a new
 * `seq`), once per `seq`, and reports the answer with `settle`: what the service took, or its refusal
 * in its own words (`Not canceled: …`). What follows — the wait's end, the next attempt, the end,
 * the message's delivery — reaches the view through its event stream, as in the Workbench, so the
 * answer only says the request was taken.
 */
import { useEffect, useRef } from 'react';
import { REFUSED } from '../../web/execution-actions.js';
import { type ExecutionActions, SWITCHED_BY } from '../source.js';
import type { ActionRequest } from './prompt-state.js';

export type Settle = (seq: number, outcome: { readonly notice: string; readonly awaitedTurn?: string }) => void;

export function useRequests(
  source: ExecutionActions,
  execution: string | undefined,
  request: (ActionRequest & { readonly seq: number }) | undefined,
  settle: Settle,
): void {
  const ran = useRef(0);
  useEffect(() => {
    if (execution === undefined || request === undefined || request.seq <= ran.current) return;
    ran.current = request.seq;
    void run(source, execution, request).then((outcome) => settle(request.seq, outcome));
  }, [source, execution, request, settle]);
}

async function run(
  source: ExecutionActions,
  execution: string,
  request: ActionRequest,
): Promise<{ notice: string; awaitedTurn?: string }> {
  try {
    switch (request.action) {
      case 'send': {
        const turn = await source.send(execution, request.text);
        return { notice: `Queued (turn ${turn.id}); waiting for the harness to take it…`, awaitedTurn: turn.id };
      }
      case 'cancel':
        await source.cancel(execution);
        return { notice: 'Cancel requested: the harness is being stopped.' };
      case 'resume':
        await source.resume(execution);
        return { notice: 'Resume requested: the execution carries on.' };
      case 'switch': {
        const { to, model, reason } = request;
        await source.switchHarness(execution, {
          to,
          by: SWITCHED_BY,
          ...(model !== undefined && { model }),
          ...(reason !== undefined && { reason }),
        });
        return { notice: `Switch to ${request.to} requested.` };
      }
    }
  } catch (error) {
    return { notice: `${REFUSED[request.action]}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
