/**
 * The prompts of an opened execution's actions in the terminal UI, and what keys do in them, pure:
 * - cancel and resume stop or change work, so each asks first, with the Workbench's words: `y`
 *   takes the action, `n` or `Esc` does not (`Enter` does nothing: a stray one must not cancel);
 * - switch asks which harness (any of the four, the running one excepted at first), and may take a
 *   model and a reason: `←`/`→` pick the harness, `↑`/`↓` or `Tab` move between the fields, typing
 *   fills the text fields, `Enter` switches, `Esc` does not;
 * - a follow-up message is typed on one line; `Enter` sends it, `Esc` drops it. Sending stops no
 *   work (the harness takes it at its next turn), so it asks nothing more.
 * What a prompt asks for is an `ActionRequest`; running it is the view's (detail-view.tsx).
 */
import { HARNESS_NAMES, type HarnessName } from '../../core/outcome.js';
import { OPEN_STATES, SWITCHABLE_STATES } from '../../web/execution-actions.js';
import type { KeyPress } from '../../web/keys/dispatch.js';
import type { Action } from '../../web/keys/keymap.js';
import { editedText } from '../key-press.js';

export type SwitchField = 'harness' | 'model' | 'reason';
const SWITCH_FIELDS: readonly SwitchField[] = ['harness', 'model', 'reason'];

export type Prompt =
  | { readonly kind: 'confirm-cancel' }
  | { readonly kind: 'confirm-resume'; readonly harness: string }
  | {
      readonly kind: 'switch';
      readonly field: SwitchField;
      readonly harness: HarnessName;
      readonly model: string;
      readonly reason: string;
    }
  | { readonly kind: 'message'; readonly text: string };

/** A request to the service an answered prompt asks for. */
export type ActionRequest =
  | { readonly action: 'cancel' }
  | { readonly action: 'resume' }
  | { readonly action: 'switch'; readonly to: HarnessName; readonly model?: string; readonly reason?: string }
  | { readonly action: 'send'; readonly text: string };

/** What a key did to a prompt: it closed, it changed, or it was answered with a request (and the words to show meanwhile). */
export type PromptOutcome =
  | 'close'
  | { readonly prompt: Prompt }
  | { readonly request: ActionRequest; readonly pending: string };

/** The prompt `action` opens given what is known of the execution, or the sentence saying why it cannot be taken now. */
export function openPrompt(
  action: Action,
  facts: {
    readonly state: string | undefined;
    readonly harness: string | undefined;
    readonly waitingFor: string | undefined;
  },
): Prompt | string {
  switch (action) {
    case 'execution:message':
      return { kind: 'message', text: '' };
    case 'execution:cancel':
      return facts.state !== undefined && OPEN_STATES.has(facts.state)
        ? { kind: 'confirm-cancel' }
        : 'The execution is over: there is nothing to cancel.';
    case 'execution:resume':
      return facts.state === 'waiting' && facts.waitingFor !== undefined
        ? { kind: 'confirm-resume', harness: facts.waitingFor }
        : 'The execution is not waiting for a quota reset: there is nothing to resume.';
    case 'execution:switch':
      return facts.state !== undefined && SWITCHABLE_STATES.has(facts.state)
        ? {
            kind: 'switch',
            field: 'harness',
            harness: HARNESS_NAMES.find((name) => name !== facts.harness) ?? HARNESS_NAMES[0],
            model: '',
            reason: '',
          }
        : 'Only a running or waiting execution can switch harness.';
    default:
      return `${action} is not an action on an execution.`;
  }
}

export function reducePrompt(prompt: Prompt, press: KeyPress, input: string): PromptOutcome {
  if (press.key === 'Escape') return 'close';
  switch (prompt.kind) {
    case 'confirm-cancel':
      if (input === 'y' || input === 'Y') return { request: { action: 'cancel' }, pending: 'Canceling…' };
      return input === 'n' || input === 'N' ? 'close' : { prompt };
    case 'confirm-resume':
      if (input === 'y' || input === 'Y') return { request: { action: 'resume' }, pending: 'Resuming…' };
      return input === 'n' || input === 'N' ? 'close' : { prompt };
    case 'message': {
      if (press.key === 'Enter') {
        const text = prompt.text.trim();
        return text === '' ? { prompt } : { request: { action: 'send', text }, pending: 'Sending…' };
      }
      return { prompt: { ...prompt, text: editedText(prompt.text, press, input) } };
    }
    case 'switch':
      return reduceSwitch(prompt, press, input);
  }
}

function reduceSwitch(prompt: Extract<Prompt, { kind: 'switch' }>, press: KeyPress, input: string): PromptOutcome {
  if (press.key === 'Enter') {
    const model = prompt.model.trim();
    const reason = prompt.reason.trim();
    return {
      request: {
        action: 'switch',
        to: prompt.harness,
        ...(model !== '' && { model }),
        ...(reason !== '' && { reason }),
      },
      pending: `Switching to ${prompt.harness}…`,
    };
  }
  const fieldStep = press.key === 'ArrowDown' || press.key === 'Tab' ? 1 : press.key === 'ArrowUp' ? -1 : 0;
  if (fieldStep !== 0) {
    const index = (SWITCH_FIELDS.indexOf(prompt.field) + fieldStep + SWITCH_FIELDS.length) % SWITCH_FIELDS.length;
    return { prompt: { ...prompt, field: SWITCH_FIELDS[index] ?? 'harness' } };
  }
  if (prompt.field === 'harness') {
    const harnessStep = press.key === 'ArrowRight' ? 1 : press.key === 'ArrowLeft' ? -1 : 0;
    const index = (HARNESS_NAMES.indexOf(prompt.harness) + harnessStep + HARNESS_NAMES.length) % HARNESS_NAMES.length;
    return { prompt: { ...prompt, harness: HARNESS_NAMES[index] ?? prompt.harness } };
  }
  return { prompt: { ...prompt, [prompt.field]: editedText(prompt[prompt.field], press, input) } };
}
