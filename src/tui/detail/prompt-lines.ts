/**
 * The lines of an open prompt (prompt-state.ts), shown under the opened execution's tab: the
 * question with the Workbench's words, the fields, and the keys that answer it. The field the keys
 * go to is marked with `›` (and bold with color), the text cursor with `▏`. Pure.
 */
import { HARNESS_NAMES } from '../../core/outcome.js';
import { CANCEL_QUESTION, resumeQuestion, SWITCH_EXPLANATION } from '../../web/execution-actions.js';
import type { Question } from '../../web/question.js';
import { type Line, paragraph } from './lines.js';
import type { Prompt, SwitchField } from './prompt-state.js';

export function promptLines(prompt: Prompt, width: number): Line[] {
  switch (prompt.kind) {
    case 'confirm-cancel':
      return question(CANCEL_QUESTION, width);
    case 'confirm-resume':
      return question(resumeQuestion(prompt.harness), width);
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
        ...paragraph(`Switch harness: ${SWITCH_EXPLANATION}`, width, 'heading'),
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

/** A question asked before an action (the Workbench's words), and the keys that answer it. */
function question(asked: Question, width: number): Line[] {
  return [
    ...paragraph(`${asked.title} ${asked.text}`, width, 'heading'),
    { text: `y  ${asked.yes}    n / Esc  Not now`, tone: 'muted' },
  ];
}
