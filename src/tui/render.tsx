/** @jsxImportSource react */
/**
 * Draws the terminal UI on this process's terminal and resolves when the user quits (`q`, or
 * Ctrl+C, which Ink handles). Imported by start.tsx only once it has chosen React's build.
 */
import { render } from 'ink';
import { App } from './app.js';
import type { ScreenRows } from './rows.js';
import type { ExecutionSource } from './source.js';
import { colorEnabled } from './theme.js';

export async function renderUi(
  source: ExecutionSource,
  knownRows: ScreenRows | undefined,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const instance = render(
    <App source={source} color={colorEnabled(env)} {...(knownRows !== undefined && { knownRows })} />,
  );
  await instance.waitUntilExit();
}
