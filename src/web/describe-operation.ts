/**
 * An operation (an `operation` record's data, or a test run of a context.json work item) in words,
 * for every surface: the CLI's timeline, the Workbench's and the terminal UI's — `changed
 * src/slug.js`, `commit e2ad641 "Add slugify"`, `push to origin/x (failed, exit 128): fatal: …`,
 * ``tests `npm test` failed (exit 1; 3 passed, 1 failed)``. A failed call says its exit code and the
 * line of its output that says why. No Node, no DOM; the data is read loosely (a record's payload
 * is whatever the log held). The handoff prompt (src/execution/handoff.ts) says the same in the
 * engine's own words, for agents.
 */

/** A test run as it reads: its command, whether it passed, its exit code and the runner's counts. */
export interface DescribedTestRun {
  readonly command: string;
  readonly passed: boolean;
  readonly exitCode?: number | undefined;
  readonly counts?: Readonly<Record<string, number | undefined>> | undefined;
}

/** ``tests `npm test` failed (exit 1; 3 passed, 1 failed)``: a failed run's exit code, then the runner's counts. */
export function describeTestRun(run: DescribedTestRun): string {
  const counts = Object.entries(run.counts ?? {})
    .filter(([, value]) => typeof value === 'number')
    .map(([key, value]) => `${value} ${key}`);
  const details = [
    ...(!run.passed && run.exitCode !== undefined ? [`exit ${run.exitCode}`] : []),
    ...(counts.length > 0 ? [counts.join(', ')] : []),
  ];
  return `tests \`${run.command}\` ${run.passed ? 'passed' : 'failed'}${details.length > 0 ? ` (${details.join('; ')})` : ''}`;
}

/** An `operation` record's data in words. */
export function describeOperation(d: Readonly<Record<string, unknown>>): string {
  const text = (key: string): string | undefined => (typeof d[key] === 'string' ? (d[key] as string) : undefined);
  const exitCode = typeof d.exitCode === 'number' ? d.exitCode : undefined;
  const failed =
    d.ok === false
      ? ` (failed${exitCode !== undefined ? `, exit ${exitCode}` : ''})${text('error') ? `: ${text('error')}` : ''}`
      : '';
  switch (text('kind')) {
    case 'file_change':
      return `changed ${(Array.isArray(d.files) ? d.files : []).join(', ')}`;
    case 'commit':
      return `commit${text('sha') ? ` ${text('sha')?.slice(0, 7)}` : ''}${text('subject') ? ` "${text('subject')}"` : ''}${failed}`;
    case 'push':
      return `push${text('remote') ? ` to ${text('remote')}` : ''}${text('branch') ? `/${text('branch')}` : ''}${failed}`;
    case 'pull_request':
      return `pull request${text('url') ? ` ${text('url')}` : ''}${failed}`;
    case 'test_run':
      return describeTestRun({
        command: text('command') ?? '?',
        passed: d.passed === true,
        exitCode,
        counts: (d.counts ?? {}) as Readonly<Record<string, number | undefined>>,
      });
    default:
      return `${text('kind') ?? 'operation'}${text('command') ? ` ${text('command')}` : ''}${failed}`;
  }
}
