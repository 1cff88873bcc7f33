/**
 * The New task form as data (src/web/task-form.ts): the form's values over a task keep what the form
 * has no input for, empty inputs leave their keys out, a link is a name unless it needs an object,
 * text that is not a number stays text for the schema to refuse, a task reads back into the same
 * values, and each problem's place finds its field.
 */
import { describe, expect, it } from 'vitest';
import { TaskFile } from '../../src/core/task.js';
import { fieldOf, formFromTask, type TaskFormValues, taskFromForm } from '../../src/web/task-form.js';

const EMPTY: TaskFormValues = {
  name: '',
  prompt: '',
  repo: '',
  baseRef: '',
  chain: [],
  timeout: '',
  maxSwitches: '',
  interruptBudget: '',
  failoverOn: [],
  waitForReset: false,
  maxWait: '',
  quotaCoolDown: '',
  countManualSwitches: false,
  switchAtUtilization: '',
  sandbox: '',
};

describe('taskFromForm', () => {
  it("writes the form's keys in the schema's order, leaves empty ones out, and keeps the task's others", () => {
    const base = {
      gates: { custom: [] },
      harness: { harness: 'codex', simulate: '/s.yaml' },
      fallbacks: ['gemini'],
      timeout: '1h',
    };
    const values: TaskFormValues = {
      ...EMPTY,
      name: ' fix ',
      prompt: 'Fix it.\n',
      chain: [
        { harness: 'codex', model: '' },
        { harness: 'gemini', model: 'pro' },
      ],
      maxSwitches: '2',
      switchAtUtilization: 'most',
      waitForReset: true,
      failoverOn: ['rate_limited'],
    };
    const task = taskFromForm(values, base);
    expect(task).toEqual({
      name: 'fix',
      prompt: 'Fix it.\n',
      harness: { harness: 'codex', simulate: '/s.yaml' },
      fallbacks: [{ harness: 'gemini', model: 'pro' }],
      maxSwitches: 2,
      failoverOn: ['rate_limited'],
      waitForReset: true,
      switchAtUtilization: 'most',
      gates: { custom: [] },
    });
    expect(Object.keys(task)).toEqual([
      'name',
      'prompt',
      'harness',
      'fallbacks',
      'maxSwitches',
      'failoverOn',
      'waitForReset',
      'switchAtUtilization',
      'gates',
    ]);
    // The form's own key order is kept by hand (the page cannot load zod): held to the schema's here.
    expect(Object.keys(task)).toEqual(Object.keys(TaskFile.shape).filter((key) => key in task));
  });

  it('reads back into the values it was made from', () => {
    const values: TaskFormValues = {
      ...EMPTY,
      name: 'fix',
      prompt: 'Fix it.',
      repo: '/app',
      baseRef: 'main',
      chain: [
        { harness: 'claude-code', model: 'opus' },
        { harness: 'codex', model: '' },
      ],
      timeout: '45m',
      maxSwitches: '1',
      countManualSwitches: true,
      sandbox: 'none',
    };
    expect(formFromTask(taskFromForm(values, {}))).toEqual(values);
    expect(formFromTask({ harness: 'codex', timeout: 600, prompt: 42 })).toMatchObject({
      chain: [{ harness: 'codex', model: '' }],
      timeout: '600',
      prompt: '42',
    });
  });
});

describe('fieldOf', () => {
  it("finds a problem's field: its key, or the chain's link; none for what the form has no input for", () => {
    expect(fieldOf('timeout')).toBe('timeout');
    expect(fieldOf('failoverOn[1]')).toBe('failoverOn');
    expect(fieldOf('harness')).toBe('chain-0');
    expect(fieldOf('harness.simulate')).toBe('chain-0');
    expect(fieldOf('fallbacks[1].harness')).toBe('chain-2');
    expect(fieldOf('gates.custom[0].command')).toBeUndefined();
    expect(fieldOf('')).toBeUndefined();
  });
});
