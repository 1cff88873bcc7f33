/**
 * The Changes tab as lines, like the Workbench's (src/web/dom/changes.ts): the files the execution
 * changed against its base (`GET /api/executions/:id/changes`), then the unified diff — added lines
 * toned `add`, removed ones `del`, `diff --git` and `@@` lines `heading` — and a note when the
 * service cut the diff. Diff lines are not wrapped (a wrapped diff misleads): each is cleaned and
 * cut to the width, the rest of a long line left out. Pure: the view fetches the changes.
 */
import type { Changes } from '../../cli/client.js';
import { BLANK, fitLine, type Line, paragraph, type Tone, toned } from './lines.js';

/** `undefined` while the changes load; the Error when fetching them failed. */
export function changesLines(changes: Changes | Error | undefined, width: number): Line[] {
  if (changes === undefined) return paragraph('Loading…', width, 'muted');
  if (changes instanceof Error) return paragraph(changes.message, width, 'error');
  const base = changes.base.slice(0, 12);
  if (changes.files.length === 0) return paragraph(`No change against ${base}.`, width, 'muted');
  const diff = changes.diff.endsWith('\n') ? changes.diff.slice(0, -1) : changes.diff;
  return [
    ...paragraph(`${changes.files.length} file(s) changed against ${base}`, width, 'muted'),
    ...changes.files.flatMap((file) =>
      paragraph(
        `${file.from === undefined ? file.path : `${file.from} → ${file.path}`}  ${file.status}, ${file.binary ? 'binary' : `+${file.additions} −${file.deletions}`}`,
        width,
        undefined,
        '  ',
      ),
    ),
    ...(diff === '' ? [] : [BLANK, ...diff.split('\n').map((line) => toned(fitLine(line, width), diffTone(line)))]),
    ...(changes.truncated
      ? [BLANK, ...paragraph('The diff is cut here: it is longer than the service sends.', width, 'muted')]
      : []),
  ];
}

function diffTone(line: string): Tone | undefined {
  if (line.startsWith('+') && !line.startsWith('+++')) return 'add';
  if (line.startsWith('-') && !line.startsWith('---')) return 'del';
  return line.startsWith('diff --git') || line.startsWith('@@') ? 'heading' : undefined;
}
