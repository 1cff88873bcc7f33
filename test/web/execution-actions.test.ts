/** What a follow-up does to an execution in each state, and what the box says (src/web/execution-actions.ts). */
import { describe, expect, it } from 'vitest';
import { followUpNote, followUpTo } from '../../src/web/execution-actions.js';

describe('a follow-up', () => {
  it('goes into an open execution, reopens a succeeded one and is refused by one that ended otherwise', () => {
    for (const state of ['queued', 'running', 'waiting']) {
      expect(followUpTo(state), state).toBe('open');
      expect(followUpNote(state), state).toBeUndefined();
    }
    expect(followUpTo('succeeded')).toBe('reopens');
    expect(followUpNote('succeeded')).toMatch(/^This execution has ended\. Sending a follow-up reopens it/);
    for (const state of ['failed', 'canceled', 'timed_out']) {
      expect(followUpTo(state), state).toBe('refused');
      expect(followUpNote(state), state).toBe(
        `This execution ended ${state}: it is not reopened, so a follow-up is refused.`,
      );
    }
  });
});
