/**
 * The key hints under an opened execution (src/tui/detail/key-hints.ts) offer the actions its state
 * allows — by the actions' own rules, which the Workbench's buttons follow too — and nothing else;
 * at 80 columns the moving hints give way before an action does.
 */
import { describe, expect, it } from 'vitest';
import { detailKeyHints } from '../../src/tui/detail/key-hints.js';
import { openDetail } from '../../src/tui/detail/state.js';

const SUMMARY = openDetail('01jf3k9x7q2m4n6p8r0s2t4v6w');
const TIMELINE = { ...SUMMARY, tab: 'events' as const };

/** The actions offered in `state`, as their hints name them. */
function offered(state: string, waitingFor?: string): string[] {
  const line = detailKeyHints(SUMMARY, { state, harness: 'codex', waitingFor }, 200);
  return line.split(' · ').filter((hint) => /^[mRSC] /.test(hint));
}

describe('the key hints of an opened execution', () => {
  it.each([
    ['queued', undefined, ['m message', 'C cancel']],
    ['running', undefined, ['m message', 'S switch', 'C cancel']],
    ['waiting', 'claude-code', ['m message', 'R resume', 'S switch', 'C cancel']],
    // Its stream has not said what it waits for yet: there is nothing to resume with.
    ['waiting', undefined, ['m message', 'S switch', 'C cancel']],
    // A follow-up reopens a succeeded execution; any other end refuses one.
    ['succeeded', undefined, ['m message']],
    ['failed', undefined, []],
    ['canceled', undefined, []],
    ['timed_out', undefined, []],
  ])('offers in %s (waiting for %s): %j', (state, waitingFor, actions) => {
    expect(offered(state, waitingFor)).toEqual(actions);
  });

  it('keeps every action, Esc and ? within 80 columns, the moving hints giving way', () => {
    const facts = { state: 'waiting', harness: 'codex', waitingFor: 'claude-code' };
    const text = detailKeyHints(SUMMARY, facts, 80);
    expect(text).toBe('1-4 tabs · m message · R resume · S switch · C cancel · Esc back · ? keys');
    const timeline = detailKeyHints(TIMELINE, facts, 80);
    expect(timeline).toBe('j/k step · m message · R resume · S switch · C cancel · Esc back · ? keys');
    expect(detailKeyHints(TIMELINE, facts, 200)).toBe(
      'j/k step · n/N switches · Enter open · / filter · m message · R resume · S switch · C cancel · Esc back · ? keys',
    );
    expect(detailKeyHints(TIMELINE, { ...facts, state: 'running' }, 80)).toBe(
      'j/k step · Enter open · m message · S switch · C cancel · Esc back · ? keys',
    );
  });

  it('is blank while a prompt is open: the prompt says its keys', () => {
    const prompting = { ...SUMMARY, prompt: { kind: 'confirm-cancel' as const } };
    expect(detailKeyHints(prompting, { state: 'running', harness: 'codex', waitingFor: undefined }, 80)).toBe(' ');
  });
});
