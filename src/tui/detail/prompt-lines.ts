/**
 * The lines of an open prompt (prompt-state.ts), shown under the opened execution's tab: the
 * question with the Workbench's words, the fields, and the keys that answer it. The field the keys
 * go to is marked with `›` (and bold with color), the text cursor with `▏`. Pure.
 */
import { HARNESS_NAMES } from '../../core/outcome.js';
import { type Line, paragraph } from './lines.js';
import type { Prompt, SwitchField } from './prompt-state.js';

export function promptLines(prompt: Prompt, width: number): Line[] {
  switch (prompt.kind) {
    case 'confirm-cancel':
      return [
        ...paragraph(
          'Cancel this execution? Its harness is stopped and the execution ends canceled.',
          width,
          'heading',
        ),
        { text: 'y  Cancel execution    n / Esc  Not now', tone: 'muted' },
      ];
    case 'confirm-resume':
      return [
        ...paragraph(
          `Resume now? The execution carries on at once, on ${prompt.harness}, without waiting for its reset. If ${prompt.harness} is still out of quota, that attempt runs out again.`,
          width,
          'heading',
        ),
        { text: 'y  Resume now    n / Esc  Not now', tone: 'muted' },
      ];
    case 'message':
      return [
        ...paragraph(`Message: ${prompt.text}▏`, width, 'heading'),
        { text: 'Enter  Send to the harness    Esc  Drop it', tone: 'muted' },
      ];
    case 'switch': {
      const field = (name: SwitchField, label: string, value: string): Line => ({
        text: `${prompt.field === name ? '›' : ' '} ${label.padEnd(8)}${value}`,
        ...(prompt.field === name && { tone: 'heading' }),
      });
      const harnesses = HARNESS_NAMES.map((name) => (name === prompt.harness ? `[${name}]` : ` ${name} `)).join(' ');
      return [
        ...paragraph(
          'Switch harness: the running turn stops at its safepoint; the chosen harness carries on in the same worktree, with the handoff.',
          width,
          'heading',
        ),
        field('harness', 'Harness', `${harnesses}  ←/→`),
        field('model', 'Model', text(prompt.model, prompt.field === 'model', "the harness's default")),
        field('reason', 'Why', text(prompt.reason, prompt.field === 'reason', 'for the timeline')),
        { text: 'Enter  Switch    ↑/↓ Tab  Field    Esc  Not now', tone: 'muted' },
      ];
    }
  }
}

/** A text field's value with the cursor when it has the keys, or its placeholder in parentheses when empty. */
function text(value: string, focused: boolean, placeholder: string): string {
  const shown = `${value}${focused ? '▏' : ''}`;
  return value === '' ? `${shown} (${placeholder})` : shown;
}
