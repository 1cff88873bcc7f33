/**
 * The Workbench's committed screenshots (docs/screenshots/) and the check that keeps them current.
 * `keepScreenshot(target, name)` takes a screenshot of a page (its viewport) or of one element and
 * the outline of what it was taken from (screen-outline.ts). Under HARMFLOW_UPDATE_SCREENSHOTS=1 both
 * are written to docs/screenshots/ (the outline to docs/screenshots/outlines/NAME.txt); otherwise the
 * screenshot goes to a temporary folder and the outline is compared with the committed one, so a
 * screen that changed while its screenshot did not fails the test (softly: the test goes on and
 * every stale screenshot is named) with the command that regenerates them.
 *
 * Why an outline and not the pixels: pixels differ across machines (fonts, antialiasing, Chromium's
 * version) and across runs (times, ids, how far a live execution got), so a pixel check either fails
 * for nothing or needs a tolerance that lets a new column through. The outline is the page's
 * structure and its fixed words, which a change of the screen changes and a rerun does not.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenOutline } from './screen-outline.js';

const UPDATE = process.env.HARMFLOW_UPDATE_SCREENSHOTS === '1';
const DOCS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
const OUTLINES = join(DOCS, 'outlines');

/** The command that retakes every committed screenshot and its outline. */
export const REGENERATE =
  'HARMFLOW_UPDATE_SCREENSHOTS=1 npx vitest run test/ui/workbench.test.ts test/ui/workflows.test.ts';

/** Where this run's screenshots go: docs/screenshots/ when updating, a temporary folder otherwise. */
const SHOTS = UPDATE ? DOCS : mkdtempSync(join(tmpdir(), 'harmflow-screens-'));

/**
 * Takes `name` (`events.png`) of `target` — a page's viewport, or one element — and keeps its outline
 * (when updating) or holds it to the committed one.
 */
export async function keepScreenshot(target: Page | Locator, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await target.screenshot({ path: join(SHOTS, name) });
  const root = 'locator' in target && 'goto' in target ? target.locator('body') : (target as Locator);
  const outline = `${await screenOutline(root)}\n`;
  const file = join(OUTLINES, name.replace(/\.png$/, '.txt'));
  if (UPDATE) {
    mkdirSync(OUTLINES, { recursive: true });
    writeFileSync(file, outline);
    return;
  }
  expect
    .soft(
      committed(file),
      `docs/screenshots/${name} was taken from a screen that has changed since: regenerate docs/screenshots with ${REGENERATE}`,
    )
    .toBe(outline);
}

/** The committed outline, or '' when there is none. */
function committed(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
