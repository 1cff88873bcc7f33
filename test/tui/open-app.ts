/**
 * The terminal UI rendered by Ink's test renderer at 80×24 without color against a service (a real
 * `harmflow serve` or the served app) through the CLI's real client, and an execution opened the way
 * a person opens it: `/` and its shown id prefix, `Enter` (the one row left is selected), `Enter`.
 */
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { createClient } from '../../src/cli/client.js';
import { App } from '../../src/tui/app.js';
import { SHOWN_ID_LENGTH } from '../../src/tui/rows.js';
import { clientSource } from '../../src/tui/source.js';
import { frameWhere, KEYS, selectedLine } from './frames.js';

export type RenderedApp = ReturnType<typeof render>;

export function renderApp(url: string, token: string, pollMs: number): RenderedApp {
  const client = createClient({ url, token: { token, from: 'test' } });
  return render(createElement(App, { source: clientSource(client), color: false, width: 80, height: 24, pollMs }));
}

/** Opens `id` from the Executions screen; resolves once its Summary shows. `timeoutMs` bounds its row's arrival. */
export async function openFromList(app: RenderedApp, id: string, timeoutMs = 3000): Promise<void> {
  const { lastFrame, stdin } = app;
  const shortId = id.slice(0, SHOWN_ID_LENGTH);
  await frameWhere(lastFrame, (frame) => frame.includes(shortId), timeoutMs);
  stdin.write('/');
  for (const character of shortId) stdin.write(character);
  stdin.write(KEYS.enter);
  await frameWhere(lastFrame, (frame) => selectedLine(frame).includes(shortId));
  stdin.write(KEYS.enter);
  await frameWhere(lastFrame, (frame) => frame.includes('[1 Summary]') && frame.includes(id));
}
