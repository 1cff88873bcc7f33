import { describe, expect, it } from 'vitest';
import { ByteTail } from '../../src/proc/tail.js';

describe('ByteTail', () => {
  it('keeps the last limit bytes across many chunks', () => {
    const tail = new ByteTail(10);
    for (let i = 0; i < 100; i++) tail.push(Buffer.from(`${i % 10}`));
    expect(tail.text()).toBe('0123456789');
    tail.push(Buffer.from('abc'));
    expect(tail.text()).toBe('3456789abc');
  });

  it('returns everything while under the limit', () => {
    const tail = new ByteTail(100);
    expect(tail.text()).toBe('');
    tail.push(Buffer.from('short'));
    expect(tail.text()).toBe('short');
  });

  it('drops a character cut by the limit instead of showing a replacement character', () => {
    const tail = new ByteTail(5);
    tail.push(Buffer.from('x🚀ab', 'utf8')); // 🚀 is 4 bytes; the last 5 bytes start inside it
    expect(tail.text()).toBe('ab');
  });
});
