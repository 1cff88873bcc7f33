import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { WorkflowDefinition } from '../../src/workflows/define.js';
import { planResume } from '../../src/workflows/plan.js';
import { approve, pendingReviews, reject } from '../../src/workflows/review.js';
import { resumeRun, startRun } from '../../src/workflows/run.js';

const CUSTOMERS = ['c1', 'c2', 'c3', 'c4'];
let store: ResumeStore;
let ledger: EffectLedger;
beforeEach(() => {
  store = openSqliteResumeStore(':memory:');
  ledger = openSqliteEffectLedger(':memory:');
});
afterEach(async () => {
  await store.close();
  await ledger.close();
});

/** Letters (c1's text from `wording`), a person's approval of each, then a send of the approved ones. */
function mailing(wording: string, sent: string[]): WorkflowDefinition {
  return {
    name: 'reviewed-mailing',
    source: () => CUSTOMERS,
    steps: [
      {
        kind: 'code',
        name: 'letter',
        version: wording,
        items: 'source',
        run: ({ key }) => (key === 'c1' ? `${wording} c1` : `Hello ${key}`),
      },
      {
        kind: 'review',
        name: 'approve',
        version: '1',
        items: 'source',
        // A person's quarter of an hour a letter, one reviewer.
        concurrency: 1,
        estimate: { secondsPerItem: 900 },
        reads: [{ step: 'letter', items: 'same' }],
        show: ({ key, inputs }) => inputs.letter?.[key] ?? null,
      },
      {
        kind: 'effect',
        name: 'send',
        version: '1',
        items: 'source',
        reads: [
          { step: 'letter', items: 'same' },
          { step: 'approve', items: 'same' },
        ],
        key: ({ key }) => `letter:${key}`,
        perform: async (_input, key) => {
          sent.push(key);
          return { sent: key };
        },
      },
    ],
  };
}

const options = () => ({ store, ledger, sleep: async () => {}, random: () => 0 });

describe('review steps', () => {
  it('wait for a person; approvals let items on, a rejection fails its item', async () => {
    const sent: string[] = [];
    const first = await startRun(mailing('Hello', sent), options());
    expect(first.run.state).toBe('waiting');
    expect(first.run.message).toBe(`4 item(s) await review: \`harmflow workflow review ${first.run.id}\`, then resume`);
    expect(sent).toEqual([]);

    const pending = await pendingReviews(mailing('Hello', sent), first.run.id, store);
    expect(pending.map((item) => [item.key, item.shown, item.reasons])).toEqual(
      CUSTOMERS.map((key) => [key, `Hello ${key}`, ['new']]),
    );
    await approve(mailing('Hello', sent), first.run.id, store, { keys: ['c1', 'c2', 'c4'], by: 'ana' });
    await reject(mailing('Hello', sent), first.run.id, store, { keys: ['c3'], by: 'ana', reason: 'wrong address' });

    const resumed = await resumeRun(mailing('Hello', sent), first.run.id, options());
    expect(sent).toEqual(['letter:c1', 'letter:c2', 'letter:c4']);
    expect(resumed.run.state).toBe('failed');
    expect(resumed.run.message).toMatch(/step approve item c3: rejected by ana: wrong address/);
    expect(await pendingReviews(mailing('Hello', sent), first.run.id, store)).toEqual([]);
  });

  it('an approval holds for what was reviewed: a changed output needs a new one', async () => {
    const sent: string[] = [];
    const first = await startRun(mailing('Hello', sent), options());
    await approve(mailing('Hello', sent), first.run.id, store, { keys: 'all', by: 'ana' });
    expect((await resumeRun(mailing('Hello', sent), first.run.id, options())).run.state).toBe('succeeded');

    // c1's letter changes: its approval no longer holds, and the reviewer sees both versions and why.
    const changed = await resumeRun(mailing('Dear', sent), first.run.id, options());
    expect(changed.run.state).toBe('waiting');
    const [again, ...others] = await pendingReviews(mailing('Dear', sent), first.run.id, store);
    expect(others).toEqual([]);
    expect(again?.key).toBe('c1');
    expect(again?.reasons).toEqual(['upstream']);
    expect([again?.previous?.shown, again?.shown]).toEqual(['Hello c1', 'Dear c1']);
    // The plan counts a person's time from the step's estimate, not from the approvals' zero duration.
    const plan = await planResume(mailing('Dear', sent), { store, run: first.run.id });
    const reviewing = plan.steps.find((step) => step.step === 'approve');
    expect([reviewing?.willRun.items, reviewing?.cost.hours]).toEqual([1, 0.25]);
    await approve(mailing('Dear', sent), first.run.id, store, { keys: ['c1'], by: 'ana' });
    expect((await resumeRun(mailing('Dear', sent), first.run.id, options())).run.state).toBe('succeeded');
    // The send is keyed per customer: the changed letter is not sent a second time.
    expect(sent).toEqual(CUSTOMERS.map((key) => `letter:${key}`));
  });
});
