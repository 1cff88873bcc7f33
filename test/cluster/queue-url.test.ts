import { describe, expect, it } from 'vitest';
import { parseQueueUrl } from '../../src/cluster/queue-url.js';
import { UsageError } from '../../src/core/errors.js';

describe('parseQueueUrl', () => {
  it('reads host, port and database, with the defaults', () => {
    expect(parseQueueUrl('redis://127.0.0.1:6380/2')).toStrictEqual({ host: '127.0.0.1', port: 6380, db: 2 });
    expect(parseQueueUrl('redis://queue.internal')).toStrictEqual({ host: 'queue.internal', port: 6379, db: 0 });
    expect(parseQueueUrl('redis://queue.internal/')).toStrictEqual({ host: 'queue.internal', port: 6379, db: 0 });
    expect(parseQueueUrl('redis://[::1]:7000')).toStrictEqual({ host: '::1', port: 7000, db: 0 });
  });

  it('reads credentials and TLS', () => {
    expect(parseQueueUrl('rediss://worker:p%40ss@queue.internal:6390/1')).toStrictEqual({
      host: 'queue.internal',
      port: 6390,
      db: 1,
      username: 'worker',
      password: 'p@ss',
      tls: {},
    });
    expect(parseQueueUrl('redis://:secret@h')).toStrictEqual({ host: 'h', port: 6379, db: 0, password: 'secret' });
  });

  it.each([
    ['http://h:6379', 'the scheme must be redis:// or rediss://'],
    ['postgres://h/db', 'the scheme must be redis:// or rediss://'],
    ['redis://h/queue', 'its path must be a database number'],
    ['redis://h/1/2', 'its path must be a database number'],
    ['redis://h?db=1', 'it must have no query'],
    ['redis://h#x', 'it must have no fragment'],
    ['redis://', 'it names no host'],
    ['h:6379', 'the scheme must be redis:// or rediss://'],
    ['not a url', 'is not a URL'],
  ])('refuses %s in one line', (text, reason) => {
    let error: unknown;
    try {
      parseQueueUrl(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never prints a password', () => {
    expect(() => parseQueueUrl('redis://u:hunter2@h/x')).toThrow(/redis:\/\/u:\*\*\*@h\/x/);
    expect(() => parseQueueUrl('redis://u:hunter2@h/x')).not.toThrow(/hunter2/);
  });
});
