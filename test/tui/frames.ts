/**
 * Reading the terminal UI's frames in tests: a bounded wait for a frame that satisfies a check
 * (failing with the last frame shown), and the line of a frame that holds a text.
 */

/** Bounded wait for a frame that satisfies `accept`; fails naming the last frame. */
export async function frameWhere(
  lastFrame: () => string | undefined,
  accept: (frame: string) => boolean,
  timeoutMs = 3000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = lastFrame() ?? '';
    if (accept(frame)) return frame;
    if (Date.now() > deadline) throw new Error(`no such frame within ${timeoutMs} ms; the last was:\n${frame}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The line of `frame` holding `text`. */
export function lineWith(frame: string, text: string): string {
  return frame.split('\n').find((line) => line.includes(text)) ?? '';
}

/** The selected line of a list or the timeline: the one marked `›`. */
export function selectedLine(frame: string): string {
  return frame.split('\n').find((line) => line.startsWith('›')) ?? '';
}

/** What a terminal sends for the keys the tests press. */
export const KEYS = {
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
  down: '\u001B[B',
  up: '\u001B[A',
  right: '\u001B[C',
  left: '\u001B[D',
};
