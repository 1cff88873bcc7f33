/**
 * The actions a person takes on an execution from the Workbench's detail page (dom/actions.ts) and
 * the terminal UI's (src/tui/detail/): in which states each can be taken, the questions asked
 * before those that stop or change work, and the first words of a refusal — one set of words for
 * both UIs. No Node, no DOM.
 */
import type { Question } from './question.js';

/** An action a UI sends to the service for the execution shown. */
export type ExecutionAction = 'send' | 'cancel' | 'resume' | 'switch';

/** The states an execution can still be canceled in. */
export const OPEN_STATES: ReadonlySet<string> = new Set(['queued', 'running', 'waiting']);

/** The states an execution can switch harness in. */
export const SWITCHABLE_STATES: ReadonlySet<string> = new Set(['running', 'waiting']);

/** The question asked before canceling. */
export const CANCEL_QUESTION: Question = {
  title: 'Cancel this execution?',
  text: 'Its harness is stopped and the execution ends canceled.',
  yes: 'Cancel execution',
};

/** The question asked before ending a wait for `harness`'s reset now. */
export function resumeQuestion(harness: string): Question {
  return {
    title: 'Resume now?',
    text: `The execution carries on at once, on ${harness}, without waiting for its reset. If ${harness} is still out of quota, that attempt runs out again.`,
    yes: 'Resume now',
  };
}

/** What a switch does, said where the harness is chosen. */
export const SWITCH_EXPLANATION =
  'The running turn stops at its safepoint; the chosen harness carries on in the same worktree, with the handoff.';

/**
 * What a follow-up does to an execution in `state`: goes into its open session (`open`: queued,
 * running, waiting), reopens it (`reopens`: only a succeeded execution is reopened), or is refused
 * (`refused`: it failed, timed out or was canceled).
 */
export function followUpTo(state: string): 'open' | 'reopens' | 'refused' {
  if (OPEN_STATES.has(state)) return 'open';
  return state === 'succeeded' ? 'reopens' : 'refused';
}

/** Said by the follow-up box of an execution that a follow-up would reopen, or that refuses one. */
export function followUpNote(state: string): string | undefined {
  const to = followUpTo(state);
  if (to === 'reopens') {
    return 'This execution has ended. Sending a follow-up reopens it: its harness carries on in the same session and worktree, with a new deadline.';
  }
  return to === 'refused' ? `This execution ended ${state}: it is not reopened, so a follow-up is refused.` : undefined;
}

/** The question asked before a follow-up reopens an ended execution. */
export const REOPEN_QUESTION: Question = {
  title: 'Reopen this execution?',
  text: 'It has ended. Sending this follow-up reopens it: its harness carries on in the same session and worktree, with a new deadline (the task’s timeout from now).',
  yes: 'Send and reopen',
};

/** The first words of the line saying the service refused `action` (`Not canceled: …`). */
export const REFUSED: Readonly<Record<ExecutionAction, string>> = {
  send: 'Not sent',
  cancel: 'Not canceled',
  resume: 'Not resumed',
  switch: 'Not switched',
};
