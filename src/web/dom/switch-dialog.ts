/**
 * Asking which harness to switch to, in the page's own dialog (`#switch-dialog`, a modal `<dialog>`
 * like the confirm dialog: Escape or "Not now" says no, the focus starts on the harness list). The
 * person picks the harness (any of the four, in the task's chain or not), may name a model and say
 * why; `askSwitch` resolves with that, or undefined when they said no.
 */
import { byId } from './el.js';

/** What the person asked for: `harness` is one of the select's options. */
export interface SwitchChoice {
  readonly harness: string;
  readonly model?: string;
  readonly reason?: string;
}

/** Shows the dialog with `current` (the harness running now) preselected away from; resolves when it closes. */
export function askSwitch(current: string | undefined): Promise<SwitchChoice | undefined> {
  const dialog = byId<HTMLDialogElement>('switch-dialog');
  if (dialog.open) return Promise.resolve(undefined);
  const harness = byId<HTMLSelectElement>('switch-harness');
  const model = byId<HTMLInputElement>('switch-model');
  const reason = byId<HTMLInputElement>('switch-reason');
  const other = [...harness.options].find((option) => option.value !== current);
  if (other !== undefined) harness.value = other.value;
  model.value = '';
  reason.value = '';
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if (dialog.returnValue !== 'yes') return resolve(undefined);
        const named = (input: HTMLInputElement) => input.value.trim() || undefined;
        const [chosenModel, why] = [named(model), named(reason)];
        resolve({
          harness: harness.value,
          ...(chosenModel !== undefined && { model: chosenModel }),
          ...(why !== undefined && { reason: why }),
        });
      },
      { once: true },
    );
    dialog.showModal();
    harness.focus();
  });
}
