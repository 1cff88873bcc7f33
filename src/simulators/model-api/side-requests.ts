/**
 * Answers to the requests a CLI makes beside the agent's turn, which never take a script's reply:
 * OpenCode's session title and Gemini CLI's JSON side questions (model-router classifiers, the
 * next-speaker check). Pure.
 */
import type { Answer, RequestView } from './protocol.js';

/** How many words of the prompt a title keeps: OpenCode's own titles are a few words long. */
const TITLE_WORDS = 6;

/**
 * The answer to every JSON side request of Gemini CLI (`generateJson`). Their parsers are
 * non-strict objects, so one object answers each: a low complexity score and `model_choice: flash`
 * (the note saw score 10 route to a flash model), and `next_speaker: user` (the turn is over).
 */
const CLASSIFIER_ANSWER = {
  complexity_reasoning: 'Simulated routing: a simple task.',
  complexity_score: 10,
  reasoning: 'Simulated routing: a simple task.',
  model_choice: 'flash',
  next_speaker: 'user',
} as const;

/** A short title made of the first words of the prompt; "Simulated session" when there are none. */
function titleFor(text: string | undefined): string {
  const words = (text ?? '')
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return words.length > 0 ? words.slice(0, TITLE_WORDS).join(' ') : 'Simulated session';
}

/** The answer to a side request; undefined for a main request. */
export function sideAnswer(view: RequestView): Answer | undefined {
  switch (view.purpose) {
    case 'title':
      return { kind: 'text', text: titleFor(view.lastUserText) };
    case 'classifier':
      return { kind: 'text', text: JSON.stringify(CLASSIFIER_ANSWER) };
    case 'main':
      return undefined;
  }
}
