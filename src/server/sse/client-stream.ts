/** What every client's event stream does whatever log it reads: its first event, heartbeats, its end. */
import { connectedFrame, HEARTBEAT } from './frames.js';
import { Outbox } from './outbox.js';

/** The stream as its producer sees it. */
export interface StreamClient {
  /** Aborts when the stream stops: the client went away, or the producer called `stop()`. */
  readonly signal: AbortSignal;
  /** Where the producer pushes the record frames. */
  readonly outbox: Outbox;
  /** Stops the stream: the heartbeat and every `onStop` release are run, `signal` aborts. Idempotent. */
  stop(): void;
  /** Adds something to release when the stream stops (e.g. a feed subscription). */
  onStop(release: () => void): void;
}

export interface ClientStreamOptions {
  /** The execution id, echoed in the `connected` event. */
  readonly execution: string;
  /** How many records the client has: the stream starts after them. */
  readonly from: number;
  /** Milliseconds between heartbeat comments. */
  readonly heartbeatMs: number;
  /** The request's signal: the client went away. */
  readonly signal: AbortSignal;
}

/**
 * startClientStream starts one client's stream and returns its outbox, for the caller to attach to
 * the response (sse/body.ts). It pushes `event: connected` with `{execution, from}`, then runs
 * `produce`, which pushes the record frames (frames.ts) in order; a heartbeat comment goes out every
 * `heartbeatMs` meanwhile. When `produce` resolves, the response ends after the frames pushed; when it
 * rejects, the response is cut off (the client sees a failed stream and resumes with Last-Event-ID).
 * The client going away stops the stream (`signal` aborts); `produce` should then return soon. The
 * stream owns its heartbeat and whatever `onStop` was given, all released when it stops or ends.
 */
export function startClientStream(
  options: ClientStreamOptions,
  produce: (client: StreamClient) => Promise<void>,
): Outbox {
  const controller = new AbortController();
  const { signal } = controller;
  let heartbeat: NodeJS.Timeout | undefined;
  const releases: (() => void)[] = [];
  const stop = (): void => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
    for (const release of releases.splice(0)) release();
    controller.abort();
  };
  const outbox = new Outbox(stop);
  if (options.signal.aborted) stop();
  options.signal.addEventListener('abort', stop, { once: true });
  signal.addEventListener('abort', () => options.signal.removeEventListener('abort', stop), { once: true });
  const client: StreamClient = {
    signal,
    outbox,
    stop,
    onStop: (release) => {
      if (signal.aborted) release();
      else releases.push(release);
    },
  };

  const run = async (): Promise<void> => {
    if (signal.aborted) return;
    outbox.push(connectedFrame(options.execution, options.from));
    heartbeat = setInterval(() => outbox.push(HEARTBEAT), options.heartbeatMs);
    await produce(client);
  };
  run().then(
    () => {
      stop();
      outbox.end();
    },
    (error: unknown) => {
      stop();
      outbox.fail(error);
    },
  );
  return outbox;
}
