/**
 * Asking before an action that cannot be taken back, in the page's own dialog (`#confirm-dialog`,
 * a modal `<dialog>`: the focus stays in it, Tab moves between its buttons, Escape or "Not now"
 * says no). `confirmAction` resolves true only when the person chose the action's button; the
 * focus starts on "Not now", so an Enter pressed by habit does nothing harmful.
 */
import type { Question } from '../question.js';
import { byId } from './el.js';

/** Shows the question; resolves when the dialog closes, true when the answer was yes. */
export function confirmAction(question: Question): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  if (dialog.open) return Promise.resolve(false);
  byId('confirm-title').textContent = question.title;
  byId('confirm-text').textContent = question.text;
  byId('confirm-yes').textContent = question.yes;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    dialog.showModal();
    byId('confirm-no').focus();
  });
}
