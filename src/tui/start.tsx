/** @jsxImportSource react */
/**
 * Starts the terminal UI on this process's terminal and resolves when the user quits (`q`, or
 * Ctrl+C, which Ink handles). The caller (src/cli/ui.ts) checks there is a terminal and builds the
 * source; this module is what it imports lazily, so other commands never load React or Ink.
 */
import { render } from 'ink';
import { App } from './app.js';
import type { ExecutionSource } from './source.js';
import { colorEnabled } from './theme.js';

export async function startUi(options: {
  readonly source: ExecutionSource;
  readonly env: NodeJS.ProcessEnv;
}): Promise<void> {
  const instance = render(<App source={options.source} color={colorEnabled(options.env)} />);
  await instance.waitUntilExit();
}
