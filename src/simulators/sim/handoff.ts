/**
 * The handoff, as the simulated agent understands it. A prompt with a line
 * `HarmFlow context file: <path>` asks the agent to continue earlier work: `sim` reads that
 * context.json (every field optional; a missing or unreadable file is said, not fatal), says what it
 * found, and before each step checks the workspace for what is already done, the way a careful agent
 * would: a file that already has its content, a commit subject already in `git log`, a branch already
 * pushed at HEAD, a pull request the forge (`gh pr list`) or the context already knows. Without the
 * line, `sim` has no memory and does every step.
 */

import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { PlanItem, Step } from './scenario.js';
import { query } from './shell.js';

const HANDOFF_LINE = /^HarmFlow context file: (.+?)\s*$/m;

/** The context file path named by the prompt's handoff line, or undefined when there is none. */
export function findContextPath(prompt: string): string | undefined {
  return HANDOFF_LINE.exec(prompt)?.[1];
}

const commit = z.object({ sha: z.string(), subject: z.string().optional() });
const remote = z.object({ remote: z.string().optional(), branch: z.string().optional(), sha: z.string().optional() });
const pullRequest = z.object({ url: z.string().optional(), number: z.number().optional() });

const workItem = z.object({
  text: z.string(),
  /** What the harness reported (context.json version 2); `status` is version 1's bare form. */
  reported: z.object({ status: z.string().optional() }).optional(),
  status: z.string().optional(),
  /** Set when HarmFlow saw none of the evidence a reported completion names. */
  unconfirmed: z.string().optional(),
  commits: z.array(commit).optional(),
  push: remote.optional(),
  pullRequest: pullRequest.optional(),
});

/** An item's status as its harness reported it, in either version of the file. */
const reportedStatus = (item: z.infer<typeof workItem>): string | undefined => item.reported?.status ?? item.status;

const attempt = z.object({
  number: z.number().optional(),
  harness: z.string().optional(),
  model: z.string().optional(),
  outcome: z.string().optional(),
  workItems: z.array(workItem).optional(),
  newCommits: z.array(commit).optional(),
  workspace: z.object({ commits: z.array(commit).optional(), remote: remote.optional() }).optional(),
});

/** The part of context.json the simulated agent reads (the engine writes more). */
export const HandoffContext = z.object({
  branch: z.string().optional(),
  attempts: z.array(attempt).optional(),
});
export type HandoffContext = z.infer<typeof HandoffContext>;

/** What reading the context file gave: the context, or why there is none. */
export type ContextRead = { context: HandoffContext } | { problem: string };

/** Reads and parses the context file; never throws. */
export async function readContext(path: string): Promise<ContextRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { problem: `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: 'it is not JSON' };
  }
  const parsed = HandoffContext.safeParse(json);
  return parsed.success ? { context: parsed.data } : { problem: 'it does not have the expected shape' };
}

const short = (sha: string): string => sha.slice(0, 7);

function describeAttempt(entry: z.infer<typeof attempt>, index: number): string {
  const who = `${entry.harness ?? 'an unknown harness'}${entry.model !== undefined ? ` (${entry.model})` : ''}`;
  const parts = [
    `Attempt ${entry.number ?? index + 1} ran ${who} and ended ${entry.outcome ?? 'without a known outcome'}`,
  ];
  const items = entry.workItems ?? [];
  if (items.length > 0) {
    const said = (item: z.infer<typeof workItem>) =>
      `"${item.text}" ${reportedStatus(item) ?? 'unknown'}${item.unconfirmed !== undefined ? ' (unconfirmed)' : ''}`;
    parts.push(`work items: ${items.map(said).join(', ')}`);
  }
  const commits = new Map<string, string>();
  const observed = entry.newCommits ?? entry.workspace?.commits ?? [];
  for (const c of [...items.flatMap((item) => item.commits ?? []), ...observed]) {
    commits.set(c.sha, c.subject ?? '');
  }
  if (commits.size > 0) {
    parts.push(`commits: ${[...commits].map(([sha, subject]) => `${short(sha)} "${subject}"`).join(', ')}`);
  }
  const pushed = entry.workspace?.remote ?? items.find((item) => item.push !== undefined)?.push;
  if (pushed?.sha !== undefined) {
    parts.push(`pushed ${pushed.remote ?? 'origin'}/${pushed.branch ?? '?'} at ${short(pushed.sha)}`);
  }
  const pr = items.find((item) => item.pullRequest !== undefined)?.pullRequest;
  if (pr !== undefined)
    parts.push(`pull request ${pr.number !== undefined ? `#${pr.number} ` : ''}${pr.url ?? ''}`.trim());
  return `${parts.join('; ')}.`;
}

/** The assistant message that says what the context file told the agent. */
export function describeContext(path: string, read: ContextRead): string {
  const promise = "I'll check the workspace before each step and skip what is already done.";
  if ('problem' in read) return `The HarmFlow context file ${path} gave nothing: ${read.problem}. ${promise}`;
  const attempts = read.context.attempts ?? [];
  const found = attempts.length === 0 ? 'No earlier attempt is recorded.' : attempts.map(describeAttempt).join(' ');
  return `Continuing earlier work (HarmFlow context file ${path}). ${found} ${promise}`;
}

/** The workspace as the agent checks it before each step. Queries run in `cwd`; nothing is changed. */
export class Workspace {
  private readonly cwd: string;
  private readonly context: HandoffContext | undefined;

  constructor(cwd: string, context: HandoffContext | undefined) {
    this.cwd = cwd;
    this.context = context;
  }

  /** Says why `step` is already done ("Already done: … — skipping."), or undefined when it is not. */
  alreadyDone(step: Step): string | undefined {
    switch (step.kind) {
      case 'write':
        return this.content(step.path) === step.content
          ? `Already done: ${step.path} already has the intended content — skipping.`
          : undefined;
      case 'edit': {
        const content = this.content(step.path);
        const applied =
          content?.includes(step.replace) === true &&
          (!content.includes(step.find) || step.replace.includes(step.find));
        return applied ? `Already done: the edit to ${step.path} is already applied — skipping.` : undefined;
      }
      case 'commit': {
        const subject = step.message.split('\n')[0] ?? '';
        const log = query('git', ['log', '--format=%H%x09%s', 'HEAD'], this.cwd) ?? '';
        const line = log.split('\n').find((entry) => entry.slice(entry.indexOf('\t') + 1) === subject);
        return line === undefined ? undefined : `Already done: commit "${subject}" (${short(line)}) — skipping.`;
      }
      case 'push': {
        const branch = this.branch();
        const head = query('git', ['rev-parse', 'HEAD'], this.cwd);
        if (branch === undefined || head === undefined) return undefined;
        const remoteHead = query('git', ['ls-remote', step.remote, `refs/heads/${branch}`], this.cwd)?.split(/\s/)[0];
        return remoteHead === head
          ? `Already done: ${branch} is already pushed to ${step.remote} at ${short(head)} — skipping.`
          : undefined;
      }
      case 'pr': {
        const pr = this.forgePullRequest() ?? this.contextPullRequest();
        return pr === undefined
          ? undefined
          : `Already done: pull request ${pr.number !== undefined ? `#${pr.number} ` : ''}(${pr.url ?? 'known from the context'}) — skipping.`;
      }
      default:
        return undefined;
    }
  }

  /**
   * The plan as the agent reports it after checking: an item is completed when the context says an
   * earlier harness completed it and HarmFlow did not mark that unconfirmed, or when every checkable
   * step (write, edit, commit, push, pr) it was in progress for is done.
   */
  checkPlan(items: readonly PlanItem[], sections: ReadonlyMap<string, readonly Step[]>): PlanItem[] {
    const completedInContext = new Set(
      (this.context?.attempts ?? [])
        .flatMap((entry) => entry.workItems ?? [])
        .filter((item) => reportedStatus(item) === 'completed' && item.unconfirmed === undefined)
        .map((item) => item.text),
    );
    return items.map((item) => {
      if (item.status === 'completed') return item;
      const checkable = (sections.get(item.text) ?? []).filter((step) => CHECKABLE.has(step.kind));
      const done =
        completedInContext.has(item.text) ||
        (checkable.length > 0 && checkable.every((step) => this.alreadyDone(step) !== undefined));
      return done ? { ...item, status: 'completed' } : item;
    });
  }

  private content(path: string): string | undefined {
    try {
      return readFileSync(join(this.cwd, path), 'utf8');
    } catch {
      return undefined;
    }
  }

  private branch(): string | undefined {
    return query('git', ['symbolic-ref', '--short', 'HEAD'], this.cwd);
  }

  private forgePullRequest(): { number?: number; url?: string } | undefined {
    const branch = this.branch();
    if (branch === undefined) return undefined;
    const out = query('gh', ['pr', 'list', '--head', branch, '--json', 'number,url'], this.cwd);
    if (out === undefined) return undefined;
    try {
      const list = z.array(z.object({ number: z.number(), url: z.string() })).safeParse(JSON.parse(out));
      return list.success ? list.data[0] : undefined;
    } catch {
      return undefined;
    }
  }

  private contextPullRequest(): { number?: number; url?: string } | undefined {
    for (const entry of this.context?.attempts ?? []) {
      for (const item of entry.workItems ?? []) {
        if (item.pullRequest !== undefined) {
          return {
            ...(item.pullRequest.number !== undefined && { number: item.pullRequest.number }),
            ...(item.pullRequest.url !== undefined && { url: item.pullRequest.url }),
          };
        }
      }
    }
    return undefined;
  }
}

const CHECKABLE = new Set<Step['kind']>(['write', 'edit', 'commit', 'push', 'pr']);

/**
 * The steps each plan item is in progress for: after a `plan` step, the steps up to the next `plan`
 * step belong to the items that step marks `in_progress`.
 */
export function planSections(steps: readonly Step[]): Map<string, Step[]> {
  const sections = new Map<string, Step[]>();
  let current: string[] = [];
  for (const step of steps) {
    if (step.kind === 'plan') {
      current = step.items.filter((item) => item.status === 'in_progress').map((item) => item.text);
      continue;
    }
    for (const text of current) sections.set(text, [...(sections.get(text) ?? []), step]);
  }
  return sections;
}
