/**
 * Color, with chalk forced on (FORCE_COLOR=1 before Ink loads, so this file's chalk sees it): the
 * app draws color where it is enabled, and under NO_COLOR a frame has no escape sequence at all,
 * although chalk itself would color (it does not read NO_COLOR).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/cli/client.js';
import type { ExecutionSource } from '../../src/tui/source.js';
import { executionRecord, FAKE_TOKEN, type FakeService, startFakeService } from './fake-service.js';
import { frameWhere, lineWith } from './frames.js';

process.env.FORCE_COLOR = '1';
const { createElement } = await import('react');
const { cleanup, render } = await import('ink-testing-library');
const { App } = await import('../../src/tui/app.js');
const { colorEnabled } = await import('../../src/tui/theme.js');
const { clientSource } = await import('../../src/tui/source.js');

let service: FakeService;
let source: ExecutionSource;
beforeAll(async () => {
  service = await startFakeService({
    live: { executions: [executionRecord({ id: '01jf3k9x7q2m4n6p8r0s2t4v6w', taskName: 'fix-login' })], attempts: {} },
    ended: { executions: [], attempts: {} },
  });
  source = clientSource(createClient({ url: service.url, token: { token: FAKE_TOKEN, from: 'test' } }));
});
afterAll(() => service.close());

/** What starts every ANSI escape sequence (color, bold, inverse). */
const ANSI = '\u001B[';

async function selectedFrame(color: boolean): Promise<string> {
  const { lastFrame, stdin } = render(createElement(App, { source, color, width: 80, height: 24, pollMs: 1000 }));
  await frameWhere(lastFrame, (frame) => frame.includes('fix-login'));
  stdin.write('j');
  return frameWhere(lastFrame, (frame) => frame.includes('›'));
}

describe('color in harmflow ui', () => {
  afterEach(() => cleanup());

  it('colors the states, the current screen and the selection', async () => {
    const frame = await selectedFrame(colorEnabled({}));
    expect(lineWith(frame, '[Executions]')).toContain(ANSI);
    expect(lineWith(frame, '›')).toContain(ANSI);
    expect(lineWith(frame, 'fix-login').split('running')[0]).toContain(ANSI);
  });

  it('draws no escape sequence under NO_COLOR', async () => {
    const frame = await selectedFrame(colorEnabled({ NO_COLOR: '1' }));
    expect(frame).not.toContain(ANSI);
    expect(frame).toContain('[Executions]');
  });
});
