/**
 * The docs' numbers and lists against the code they describe (issue 25: the interrupt budget was
 * 60 s in the code and 5 s in two docs; the task file's list of known harnesses was stale). Every
 * value is read from the code (imports), never restated here: the interrupt budget's default and
 * maximum, the task file's defaults and maxima, the known and simulated harnesses, the verbs of the
 * commander program against docs/cli.md, the task file's keys against docs/task-file.md, and the
 * service's default port wherever the docs give its address.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../src/cli/default-port.js';
import { buildProgram } from '../../src/cli/program.js';
import { taskJsonSchema } from '../../src/cli/schema.js';
import { formatDuration, parseDuration } from '../../src/core/duration.js';
import { HARNESS_NAMES, SIMULATED_HARNESSES } from '../../src/core/outcome.js';
import { MAX_INTERRUPT_BUDGET_MS, MAX_QUOTA_WAIT_MS, MAX_TIMEOUT_MS } from '../../src/core/task.js';
import { DEFAULT_INTERRUPT_BUDGET_MS } from '../../src/execution/engine.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
/** README.md and every page of docs/. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : [])),
];

/** Milliseconds of a duration as the docs write it: `60 s`, `60s`, `1h`. */
function ms(written: string): number | undefined {
  return parseDuration(written.replace(/\s+/g, ''));
}

/** Every first group of `pattern` (global) in `text`, the text's line breaks read as spaces. */
function captures(text: string, pattern: RegExp): string[] {
  return [...text.replace(/\s*\n\s*/g, ' ').matchAll(pattern)].map((match) => match[1] ?? '');
}

/** The cells of each row of the markdown table whose header row is `header`, cell by cell. */
function tableRows(text: string, header: readonly string[]): string[][] {
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
  const lines = text.split('\n');
  const start = lines.findIndex(
    (line) => line.startsWith('|') && JSON.stringify(cells(line)) === JSON.stringify(header),
  );
  if (start < 0) throw new Error(`no table headed ${header.join(' | ')}`);
  const rows: string[][] = [];
  for (let at = start + 2; lines[at]?.startsWith('|'); at++) rows.push(cells(lines[at] ?? ''));
  return rows;
}

/** The task file's tables in docs/task-file.md: its fields, their maxima, a harness object's fields. */
const FIELDS = ['field', 'default', 'meaning'];
const MAXIMA = ['field', 'maximum', 'why'];
const HARNESS_OBJECT = ['field', 'meaning'];

/** The names in backticks in `text`, in order. */
const quoted = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');

describe('the interrupt budget', () => {
  const budget = formatDuration(DEFAULT_INTERRUPT_BUDGET_MS);

  it(`is ${budget} by default wherever a page gives a number for it`, () => {
    const found: [string, string][] = [];
    for (const page of PAGES) {
      const text = read(page);
      for (const pattern of [
        /interrupt budget\s*\((\d+(?:\.\d+)?\s?(?:ms|s|m|h))\b/gi,
        /`(?:serve )?--interrupt-budget`,? else (\d+\s?(?:ms|s|m|h))\b/g,
        /\[--interrupt-budget (\w+)\]/g,
      ]) {
        for (const written of captures(text, pattern)) found.push([page, written]);
      }
    }
    // concepts.md (the deadline), cli.md (cancel; serve's and worker's usage), api.md, service.md.
    expect(new Set(found.map(([page]) => page))).toStrictEqual(
      new Set(['docs/concepts.md', 'docs/cli.md', 'docs/api.md', 'docs/service.md']),
    );
    for (const [page, written] of found) expect(ms(written), `${page}: ${written}`).toBe(DEFAULT_INTERRUPT_BUDGET_MS);
  });

  it('has the default and the maximum of the code in the task file’s tables and in the option’s help', () => {
    const text = read('docs/task-file.md');
    const [, defaultCell] = tableRows(text, FIELDS).find(([field]) => field === '`interruptBudget`') ?? [];
    expect(ms(quoted(defaultCell ?? '')[0] ?? '')).toBe(DEFAULT_INTERRUPT_BUDGET_MS);
    const [, maximumCell] = tableRows(text, MAXIMA).find(([field]) => field === '`interruptBudget`') ?? [];
    expect(ms(quoted(maximumCell ?? '')[0] ?? '')).toBe(MAX_INTERRUPT_BUDGET_MS);
    const program = buildProgram();
    for (const verb of ['serve', 'worker']) {
      const option = program.commands
        .find((command) => command.name() === verb)
        ?.options.find((candidate) => candidate.long === '--interrupt-budget');
      const written = /default (\w+)\)/.exec(option?.description ?? '')?.[1] ?? '';
      expect(ms(written), `${verb} --interrupt-budget`).toBe(DEFAULT_INTERRUPT_BUDGET_MS);
    }
  });
});

describe('the task file', () => {
  const schema = JSON.parse(taskJsonSchema()) as {
    properties: Record<string, { default?: unknown; anyOf?: { properties?: Record<string, unknown> }[] }>;
  };
  const text = read('docs/task-file.md');

  it('documents exactly the schema’s keys, in its order', () => {
    const fields = tableRows(text, FIELDS).map(([field]) => quoted(field ?? '')[0]);
    expect(fields).toStrictEqual(Object.keys(schema.properties));
  });

  it('documents exactly the keys of a harness object', () => {
    const fields = tableRows(text, HARNESS_OBJECT).map(([field]) => quoted(field ?? '')[0]);
    const long = schema.properties.harness?.anyOf?.find((option) => option.properties !== undefined);
    expect(fields).toStrictEqual(Object.keys(long?.properties ?? {}));
  });

  it('gives the schema’s defaults of its durations, and the code’s maxima', () => {
    for (const [field, defaultCell] of tableRows(text, FIELDS)) {
      const name = quoted(field ?? '')[0] ?? '';
      const written = schema.properties[name]?.default;
      if (typeof written !== 'string' || parseDuration(written) === undefined) continue;
      expect(ms(quoted(defaultCell ?? '')[0] ?? ''), name).toBe(parseDuration(written));
    }
    const maxima = Object.fromEntries(
      tableRows(text, MAXIMA).map(([field, maximum]) => [quoted(field ?? '')[0], ms(quoted(maximum ?? '')[0] ?? '')]),
    );
    expect(maxima).toStrictEqual({
      timeout: MAX_TIMEOUT_MS,
      interruptBudget: MAX_INTERRUPT_BUDGET_MS,
      maxWait: MAX_QUOTA_WAIT_MS,
      quotaCoolDown: MAX_QUOTA_WAIT_MS,
    });
  });
});

describe('the harnesses', () => {
  it('are listed whole wherever a page lists the known ones', () => {
    const [, harnessCell] =
      tableRows(read('docs/task-file.md'), HARNESS_OBJECT).find(([field]) => field === '`harness`') ?? [];
    expect(quoted(harnessCell ?? '')).toStrictEqual([...HARNESS_NAMES]);
    const known = PAGES.flatMap((page) => captures(read(page), /\(known: ([^)]*)\)/g).map((list) => [page, list]));
    expect(known.length).toBeGreaterThan(0);
    for (const [page, list] of known) expect(list, page).toBe(HARNESS_NAMES.join(', '));
    const concepts = /\| harness +\| an agent CLI HarmFlow drives: ([^.]*)\./.exec(read('README.md'))?.[1] ?? '';
    expect(quoted(concepts)).toStrictEqual([...HARNESS_NAMES]);
  });

  it('that the simulator plays are the code’s', () => {
    const [, played] =
      tableRows(read('docs/simulator.md'), ['environment', 'meaning']).find(([name]) => name === '`HARMFLOW_SIM_AS`') ??
      [];
    expect(quoted(played ?? '')).toStrictEqual([...SIMULATED_HARNESSES]);
    const concepts = /\| harness +\|[^|]*The simulator `sim` can play ([^|]*?)\s*\|/.exec(read('README.md'))?.[1] ?? '';
    expect(quoted(concepts)).toStrictEqual([...SIMULATED_HARNESSES]);
  });
});

describe('docs/cli.md', () => {
  const text = read('docs/cli.md');
  const program = buildProgram();
  const verbs = program.commands.map((command) => command.name());
  const sub = (verb: string): string[] =>
    (program.commands.find((command) => command.name() === verb)?.commands ?? []).map((command: Command) =>
      command.name(),
    );

  /** The verbs a page lists: each command table's rows, and each usage paragraph opening with `harmflow VERB`. */
  const listed = [
    ...[...text.matchAll(/^\| `([a-z][a-z-]*)/gm)].map((match) => match[1] ?? ''),
    ...[...text.matchAll(/^`harmflow ([a-z][a-z-]*)/gm)].map((match) => match[1] ?? ''),
  ];

  it('lists every verb of the program', () => {
    expect(verbs.filter((verb) => !listed.includes(verb))).toStrictEqual([]);
  });

  it('names no verb the program does not have', () => {
    const named = [...text.matchAll(/`harmflow ([a-z][a-z-]*)/g)].map((match) => match[1] ?? '');
    expect([...listed, ...named].filter((verb) => !verbs.includes(verb))).toStrictEqual([]);
  });

  it('lists the subcommands of workflow, admission and harnesses', () => {
    const workflow = /`harmflow workflow ((?:[a-z]+\|)+[a-z]+)`/.exec(text)?.[1]?.split('|') ?? [];
    expect(new Set(workflow)).toStrictEqual(new Set(sub('workflow')));
    for (const verb of ['admission', 'harnesses']) {
      const rows = [...text.matchAll(new RegExp(`\`${verb} ([a-z]+)`, 'g'))].map((match) => match[1] ?? '');
      expect(new Set(rows), verb).toStrictEqual(new Set(sub(verb)));
    }
  });
});

describe('the service’s default port', () => {
  it(`is ${DEFAULT_PORT} wherever a page gives the service’s address (captured screens aside)`, () => {
    const found: [string, number][] = [];
    for (const page of ['README.md', 'docs/cli.md', 'docs/api.md', 'docs/service.md', 'docs/workbench.md']) {
      // Captured screens (```text blocks) show whatever free port their test's service took.
      const prose = read(page).replace(/^```text\n[\s\S]*?^```$/gm, '');
      for (const port of captures(prose, /(?:https?:\/\/|[\s(`<])127\.0\.0\.1:(\d+)/g))
        found.push([page, Number(port)]);
      for (const port of captures(prose, /serve \[--port (\d+)\]/g)) found.push([page, Number(port)]);
    }
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter(([, port]) => port !== DEFAULT_PORT)).toStrictEqual([]);
  });
});
