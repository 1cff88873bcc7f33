import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from '../../src/web/sse-parser.js';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Parses `chunks` (text, or bytes for a cut inside a character) and returns what was dispatched. */
function parse(chunks: readonly (string | Uint8Array)[], lastEventId?: string) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = new SseParser(
    { event: (event) => events.push(event), retry: (ms) => retries.push(ms) },
    ...(lastEventId === undefined ? [] : [lastEventId]),
  );
  for (const chunk of chunks) parser.push(typeof chunk === 'string' ? bytes(chunk) : chunk);
  return { events, retries, lastEventId: parser.lastEventId };
}

/** Every way to cut `text` in two, as byte chunks. */
function cutsOf(text: string): Uint8Array[][] {
  const all = bytes(text);
  return Array.from({ length: all.length + 1 }, (_, at) => [all.subarray(0, at), all.subarray(at)]);
}

/** A stream as the events route writes it: connected, two records, a heartbeat. */
const ROUTE_STREAM =
  'event: connected\ndata: {"execution":"e","from":0}\n\n' +
  'id: 1\ndata: {"type":"warning"}\n\n' +
  ': heartbeat\n\n' +
  'id: 2\ndata: {"type":"execution.ended"}\n\n';

const ROUTE_EVENTS: SseEvent[] = [
  { type: 'connected', data: '{"execution":"e","from":0}', lastEventId: '' },
  { type: 'message', data: '{"type":"warning"}', lastEventId: '1' },
  { type: 'message', data: '{"type":"execution.ended"}', lastEventId: '2' },
];

describe('SseParser', () => {
  it("parses the events route's framing: named and unnamed events, ids, comments ignored", () => {
    const { events, lastEventId } = parse([ROUTE_STREAM]);
    expect(events).toEqual(ROUTE_EVENTS);
    expect(lastEventId).toBe('2');
  });

  it('gives the same events however the bytes are cut: inside a line, a field name, a line end', () => {
    for (const chunks of cutsOf(ROUTE_STREAM)) expect(parse(chunks).events).toEqual(ROUTE_EVENTS);
    const oneByteAtATime = [...bytes(ROUTE_STREAM)].map((byte) => Uint8Array.of(byte));
    expect(parse(oneByteAtATime).events).toEqual(ROUTE_EVENTS);
  });

  it('ends lines at CRLF, LF and CR alike, a CR and LF in different chunks being one line end', () => {
    const expected = [{ type: 'message', data: 'a\nb', lastEventId: '7' }];
    expect(parse(['id: 7\r\ndata: a\r\ndata: b\r\n\r\n']).events).toEqual(expected);
    expect(parse(['id: 7\rdata: a\rdata: b\r\r']).events).toEqual(expected);
    expect(parse(['id: 7\ndata: a\r\ndata: b\r\r\n']).events).toEqual(expected);
    // Were the LF after a chunk's last CR taken for a blank line, `a` would go out alone.
    expect(parse(['id: 7\r\ndata: a\r', '\ndata: b\r', '\n\r', '\n']).events).toEqual(expected);
    for (const chunks of cutsOf('id: 7\r\ndata: a\r\ndata: b\r\n\r\n')) expect(parse(chunks).events).toEqual(expected);
  });

  it('joins data lines with \\n and drops only one space after the colon', () => {
    const { events } = parse(['data:{"a":\ndata:  1}\ndata\ndata: x: y\n\n']);
    expect(events.map((event) => event.data)).toEqual(['{"a":\n 1}\n\nx: y']);
  });

  it('keeps a character cut between chunks whole, and drops a leading byte order mark', () => {
    const all = bytes('\uFEFFdata: é🙂\n\n');
    for (let at = 0; at <= all.length; at++) {
      expect(parse([all.subarray(0, at), all.subarray(at)]).events, `cut at ${at}`).toEqual([
        { type: 'message', data: 'é🙂', lastEventId: '' },
      ]);
    }
  });

  it('dispatches on a blank line only, and never an event the stream ended in the middle of', () => {
    expect(parse(['data: a\n']).events).toEqual([]);
    expect(parse(['data: a\n\ndata: b']).events.map((event) => event.data)).toEqual(['a']);
    expect(parse(['\n\n: only a comment\n\n']).events).toEqual([]);
  });

  it('dispatches `data:` with an empty value, but not an event with no data line', () => {
    expect(parse(['data:\n\n']).events).toEqual([{ type: 'message', data: '', lastEventId: '' }]);
    expect(parse(['event: connected\n\n']).events).toEqual([]);
  });

  it('carries an id over to later events, updates it on an event without data, ignores one with NUL', () => {
    const { events, lastEventId } = parse(['id: 3\ndata: a\n\ndata: b\n\nid: 4\n\nid: x\u0000y\ndata: c\n\n']);
    expect(events.map((event) => [event.data, event.lastEventId])).toEqual([
      ['a', '3'],
      ['b', '3'],
      ['c', '4'],
    ]);
    expect(lastEventId).toBe('4');
  });

  it("starts from the caller's last event id, so an event without id on a new connection keeps it", () => {
    const { events, lastEventId } = parse(['event: connected\ndata: {}\n\n'], '41');
    expect(events).toEqual([{ type: 'connected', data: '{}', lastEventId: '41' }]);
    expect(lastEventId).toBe('41');
    expect(parse([], '41').lastEventId).toBe('41');
  });

  it('names the event from the last event: field, and forgets it after dispatch', () => {
    const { events } = parse(['event: a\nevent: b\ndata: 1\n\ndata: 2\n\nevent\ndata: 3\n\n']);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['b', '1'],
      ['message', '2'],
      ['message', '3'],
    ]);
  });

  it('reports retry: with digits only, and ignores unknown fields', () => {
    const { events, retries } = parse(['retry: 250\nretry: 1.5\nretry: -1\nretry\nretry: x\nfoo: bar\ndata: a\n\n']);
    expect(retries).toEqual([250]);
    expect(events).toEqual([{ type: 'message', data: 'a', lastEventId: '' }]);
  });
});
