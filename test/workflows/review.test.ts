import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../src/store/effect-ledger.js';
import type { ResumeStore } from '../../src/store/resume-store.js';
import { openSqliteEffectLedger } from '../../src/store/sqlite/effect-ledger.js';
import { openSqliteResumeStore } from '../../src/store/sqlite/resume-store.js';
import type { StepDefinition, WorkflowDefinition } from '../../src/workflows/define.js';
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
      letterStep(wording),
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
      sendStep(sent, ['letter', 'approve']),
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

  it('a rule lets through what needs no person; what this run changed goes to one, with the change and its cause', async () => {
    const sent: string[] = [];
    const first = await startRun(ruled('Hello', sent), options());
    // c3's letter is flagged: a person must see it; the rule approves the others, and they are sent.
    expect(first.run.state).toBe('waiting');
    expect(first.steps.find((step) => step.step === 'approve')).toMatchObject({ computed: 3, awaiting: 1 });
    expect(sent).toEqual(['letter:c1', 'letter:c2', 'letter:c4']);
    const [flagged, ...none] = await pendingReviews(ruled('Hello', sent), first.run.id, store);
    expect(none).toEqual([]);
    expect([flagged?.key, flagged?.shown, flagged?.change]).toEqual(['c3', 'Hello c3 (flagged)', undefined]);
    const byRule = await store.getOutputs(
      (await store.listRunItems(first.run.id, 'approve')).flatMap((item) =>
        item.status === 'done' ? [item.fingerprint] : [],
      ),
    );
    expect([...byRule.values()].map((output) => [output.item, (output.output as { by: string }).by])).toEqual(
      expect.arrayContaining([
        ['c1', 'rule'],
        ['c2', 'rule'],
        ['c4', 'rule'],
      ]),
    );
    await approve(ruled('Hello', sent), first.run.id, store, { keys: ['c3'], by: 'ana' });
    expect((await resumeRun(ruled('Hello', sent), first.run.id, options())).run.state).toBe('succeeded');

    // The wording changes c1's letter, and so its polished text: this run changed it, so a person
    // sees it, beside the version before, with the chain back to the change.
    const changed = await resumeRun(ruled('Dear', sent), first.run.id, options());
    expect(changed.run.state).toBe('waiting');
    const [again, ...rest] = await pendingReviews(ruled('Dear', sent), first.run.id, store);
    expect(rest).toEqual([]);
    expect(again?.key).toBe('c1');
    expect(again?.change).toEqual({ earlier: 'Hello c1', because: 'polish c1 ← letter c1: version Hello → Dear' });
    expect(again?.previous?.by).toBe('rule');
  });

  it('plans a fixed review sitting once when anything waits, apart from the work', async () => {
    const sent: string[] = [];
    const sitting = (wording: string): WorkflowDefinition => {
      const definition = ruled(wording, sent);
      return {
        ...definition,
        steps: definition.steps.map((step) =>
          step.kind === 'review' ? { ...step, estimate: { secondsPerItem: 0, fixedSeconds: 7200 } } : step,
        ),
      };
    };
    const fresh = await planResume(sitting('Hello'), { store });
    expect([fresh.total.reviewHours, fresh.full.total.reviewHours]).toEqual([2, 2]);
    const first = await startRun(sitting('Hello'), options());
    await approve(sitting('Hello'), first.run.id, store, { keys: 'all', by: 'ana' });
    await resumeRun(sitting('Hello'), first.run.id, options());
    const nothing = await planResume(sitting('Hello'), { store, run: first.run.id });
    expect(nothing.total.reviewHours).toBe(0);
    expect(nothing.steps.find((step) => step.step === 'approve')?.cost.hours).toBe(0);
  });
});

/**
 * Letters polished, then reviewed by a rule: a person sees a letter that is flagged (c3's), or one
 * this run changed; the rule approves the rest.
 */
function ruled(wording: string, sent: string[]): WorkflowDefinition {
  return {
    name: 'ruled-mailing',
    source: () => CUSTOMERS,
    steps: [
      letterStep(wording),
      {
        kind: 'code',
        name: 'polish',
        version: '1',
        items: 'source',
        reads: [{ step: 'letter', items: 'same' }],
        run: ({ key, inputs }) => `${String(inputs.letter?.[key])}${key === 'c3' ? ' (flagged)' : ''}`,
      },
      {
        kind: 'review',
        name: 'approve',
        version: '1',
        items: 'source',
        reads: [{ step: 'polish', items: 'same' }],
        show: ({ key, inputs }) => inputs.polish?.[key] ?? null,
        needsPerson: ({ key, inputs }, { earlier }) =>
          earlier !== undefined || String(inputs.polish?.[key]).endsWith('(flagged)'),
      },
      sendStep(sent, ['approve']),
    ],
  };
}

/** The letter of each customer: c1's begins with `wording`, the others with "Hello". */
function letterStep(wording: string): StepDefinition {
  return {
    kind: 'code',
    name: 'letter',
    version: wording,
    items: 'source',
    run: ({ key }) => (key === 'c1' ? `${wording} c1` : `Hello ${key}`),
  };
}

/** Sends each customer's letter once (key `letter:<customer>`), after the steps it reads; records the keys sent. */
function sendStep(sent: string[], reads: readonly string[]): StepDefinition {
  return {
    kind: 'effect',
    name: 'send',
    version: '1',
    items: 'source',
    reads: reads.map((step) => ({ step, items: 'same' as const })),
    key: ({ key }) => `letter:${key}`,
    perform: async (_input, key) => {
      sent.push(key);
      return { sent: key };
    },
  };
}
