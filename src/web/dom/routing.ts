/**
 * The Summary's "Sessions" section: the execution is the session the user sees, each attempt ran a
 * real harness session. One list item per harness session the ended attempts ran in, one for the
 * attempt running, and where the next follow-up goes — the `routing` of the execution's detail
 * (docs/service.md, "Session routing"), in the words `harmflow show` uses (../describe-routing.ts).
 */
import { describeNextFollowUp, describeRunning, describeSession, type SessionRouting } from '../describe-routing.js';
import { el } from './el.js';

/** The section's nodes: its heading, what it shows, the sessions, and the next follow-up. */
export function renderRouting(routing: SessionRouting | undefined): Node[] {
  if (routing === undefined) return [];
  return [
    el('h2', {}, 'Sessions'),
    el(
      'p',
      { class: 'muted' },
      'This execution is one session to you; each attempt ran a real harness session. Session ids are as each harness reported them.',
    ),
    el(
      'ul',
      { class: 'sessions', 'aria-label': 'Harness sessions' },
      ...routing.sessions.map((session) =>
        el('li', { 'data-harness': session.harness, 'data-session': session.sessionId }, describeSession(session)),
      ),
      routing.running === undefined
        ? null
        : el('li', { class: 'running', 'data-harness': routing.running.harness }, describeRunning(routing.running)),
    ),
    el(
      'p',
      { class: 'next-follow-up', 'data-kind': routing.nextFollowUp.kind },
      el('span', { class: 'label' }, 'Next follow-up: '),
      describeNextFollowUp(routing.nextFollowUp),
    ),
  ];
}
