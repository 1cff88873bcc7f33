/**
 * The key hints under an opened execution, pure: how to move in what is shown, the actions that
 * can be taken on the execution in the state it is in now, the way back and the help. Which actions
 * apply is the actions' own rules, not restated here: `R`, `S` and `C` are offered when their prompt
 * would open (prompt-state.ts's `openPrompt`, over src/web/execution-actions.ts's states), `m` unless
 * the execution refuses a follow-up (execution-actions.ts's `followUpTo`). When the hints are wider
 * than the view, the moving hints give way (the help lists them), least needed first; the actions,
 * `Esc back` and `? keys` always show. With a prompt open its own lines say the keys: a blank line.
 */
import { followUpTo } from '../../web/execution-actions.js';
import type { Action } from '../../web/keys/keymap.js';
import { textWidth } from './lines.js';
import { openPrompt } from './prompt-state.js';
import { type DetailFacts, type DetailState, scrolledNow } from './state.js';

const SEPARATOR = ' · ';

/** The actions' hints in the order shown, with the action whose prompt must open for each. */
const ACTION_HINTS: readonly { readonly action: Action; readonly hint: string }[] = [
  { action: 'execution:resume', hint: 'R resume' },
  { action: 'execution:switch', hint: 'S switch' },
  { action: 'execution:cancel', hint: 'C cancel' },
];

/** The moving hints in the order shown, and in the order they give way. */
const TIMELINE = {
  shown: ['j/k step', 'n/N switches', 'Enter open', '/ filter'],
  dropped: ['/ filter', 'n/N switches', 'Enter open', 'j/k step'],
};
const TEXT = { shown: ['1-4 tabs', 'j/k scroll'], dropped: ['j/k scroll', '1-4 tabs'] };

export function detailKeyHints(
  view: Pick<DetailState, 'tab' | 'openEvent' | 'prompt'>,
  facts: Pick<DetailFacts, 'state' | 'harness' | 'waitingFor'>,
  width: number,
): string {
  if (view.prompt !== undefined) return ' ';
  const moving = scrolledNow(view) === undefined ? TIMELINE : TEXT;
  const actions = [
    ...(facts.state !== undefined && followUpTo(facts.state) !== 'refused' ? ['m message'] : []),
    ...ACTION_HINTS.filter(({ action }) => typeof openPrompt(action, facts) !== 'string').map(({ hint }) => hint),
  ];
  const kept = new Set(moving.shown);
  const line = () =>
    [...moving.shown.filter((hint) => kept.has(hint)), ...actions, 'Esc back', '? keys'].join(SEPARATOR);
  for (const hint of moving.dropped) {
    if (textWidth(line()) <= width) break;
    kept.delete(hint);
  }
  return line();
}
