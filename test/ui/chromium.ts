/**
 * Whether the browser tests can run here: they drive Debian's Chromium (`apt-get install chromium`)
 * with playwright-core — never a downloaded browser. HARMFLOW_CHROMIUM names another binary. Without
 * one the tests are skipped with one line saying how to enable them; with HARMFLOW_REQUIRE_CHROMIUM=1
 * (CI) a missing Chromium is a failure, never a skip.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.HARMFLOW_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.HARMFLOW_REQUIRE_CHROMIUM === '1';

/** True when Chromium is installed; otherwise one line (or a throw when it is required). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const how =
    "install Debian's chromium (`apt-get install -y --no-install-recommends chromium`) or set HARMFLOW_CHROMIUM";
  if (REQUIRED) throw new Error(`HARMFLOW_REQUIRE_CHROMIUM=1 but ${CHROMIUM} is missing: ${how}`);
  process.stdout.write(`browser tests skipped (no ${CHROMIUM}): ${how}\n`);
  return false;
}

/** Launches it headless; as root it needs `--no-sandbox`. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
