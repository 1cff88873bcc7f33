/**
 * The README shows each view of the terminal UI as captured by its tmux end-to-end test
 * (docs/screens/, rewritten with HARMFLOW_UPDATE_SCREENSHOTS=1): every capture must appear there
 * word for word, in a `text` block, so the README and the captures cannot drift apart. (Whether the
 * captures still match what the UI draws is on whoever changes the UI: the tmux test checks the
 * same screens' content on every run, but writes them to docs/screens/ only when asked.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCREENS = `${ROOT}docs/screens/`;

describe('the README’s captures of harmflow ui', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const blocks = [...readme.matchAll(/```text\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const captures = readdirSync(SCREENS).filter((name) => name.endsWith('.txt'));

  it('has a capture of every view', () => {
    expect(captures.sort()).toEqual(
      ['changes', 'events', 'executions', 'help', 'history', 'summary', 'transcript', 'workflow-run', 'workflows'].map(
        (name) => `${name}.txt`,
      ),
    );
  });

  it.each(captures)('shows %s as captured', (name) => {
    const capture = readFileSync(`${SCREENS}${name}`, 'utf8');
    expect(blocks, `README.md has no text block equal to docs/screens/${name}`).toContain(capture);
  });
});
