/**
 * The server-sent events wire format, parsed as the WHATWG HTML standard says ("Parsing an event
 * stream"), for a body that arrives in chunks of any size: bytes are decoded as UTF-8 in streaming
 * mode (a character split across chunks is kept until it completes; a leading BOM is dropped); lines
 * end at `\r\n`, `\n` or `\r`, a `\r` ending one chunk and a `\n` starting the next being one line end;
 * a partial last line is kept until it completes. A line starting with `:` is a comment and ignored;
 * `field: value` loses one space after the colon; `data:` lines are joined with `\n`; `event:` names
 * the event (default `message`); `id:` sets the last event id (unless it holds U+0000), which
 * carries over to later events until another `id:`; `retry:` with only digits is reported at once;
 * other fields are ignored. A blank line dispatches the event if it had data. A stream that ends in
 * the middle of an event drops that event: there is no flush.
 *
 * One difference from the standard, as browsers do it: the last event id starts at the value the
 * caller gives (the id of the connection before), not at the empty string, so an event without an
 * `id:` on a new connection (HarmFlow's `connected`) does not make the client forget where it is.
 *
 * One parser per connection, owned by its caller; handlers are called synchronously from `push`.
 * No Node, no DOM: it runs in the browser and in Node.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field, or `message` for an unnamed event. */
  readonly type: string;
  /** The `data:` lines, joined with `\n`. */
  readonly data: string;
  /** The last event id at dispatch: this event's `id:`, else the one before it. */
  readonly lastEventId: string;
}

export interface SseHandlers {
  readonly event: (event: SseEvent) => void;
  /** A `retry:` field: the server's reconnection time in milliseconds. */
  readonly retry?: (ms: number) => void;
}

export class SseParser {
  readonly #handlers: SseHandlers;
  readonly #decoder = new TextDecoder();
  readonly #lineBreaks = /\r\n?|\n/g;
  /** The incomplete last line. */
  #line = '';
  /** The text so far ended with `\r`: a `\n` starting the next text is part of that line end. */
  #afterCr = false;
  #data: string[] = [];
  #type = '';
  #idBuffer: string;
  #lastEventId: string;

  constructor(handlers: SseHandlers, lastEventId = '') {
    this.#handlers = handlers;
    this.#idBuffer = lastEventId;
    this.#lastEventId = lastEventId;
  }

  /** The last event id of the events dispatched so far (or the one given to the constructor). */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Parses the next bytes of the stream, dispatching every event they complete. */
  push(bytes: Uint8Array): void {
    let text = this.#decoder.decode(bytes, { stream: true });
    if (text === '') return;
    if (this.#afterCr && text.startsWith('\n')) text = text.slice(1);
    this.#afterCr = false;
    const breaks = this.#lineBreaks;
    breaks.lastIndex = 0;
    let start = 0;
    for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
      const line = this.#line + text.slice(start, match.index);
      this.#line = '';
      start = breaks.lastIndex;
      if (start === text.length && match[0] === '\r') this.#afterCr = true;
      this.#take(line);
    }
    this.#line += text.slice(start);
  }

  #take(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#type = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\u0000')) this.#idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#handlers.retry?.(Number(value));
        break;
    }
  }

  #dispatch(): void {
    this.#lastEventId = this.#idBuffer;
    const type = this.#type || 'message';
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length > 0) this.#handlers.event({ type, data: data.join('\n'), lastEventId: this.#lastEventId });
  }
}
