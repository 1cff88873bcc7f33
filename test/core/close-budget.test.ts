import { describe, expect, it } from 'vitest';
import { closeWithin } from '../../src/core/close-budget.js';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('closeWithin', () => {
  it('waits for what closes within the budget without calling onExpired', async () => {
    let expired = 0;
    await closeWithin(after(10), 1_000, () => {
      expired += 1;
    });
    expect(expired).toBe(0);
  });

  it('calls onExpired once when the budget runs out, then still waits for the close', async () => {
    const events: string[] = [];
    let finish: () => void = () => {};
    const closing = new Promise<void>((resolve) => {
      finish = resolve;
    }).then(() => events.push('closed'));
    await closeWithin(closing, 20, () => {
      events.push('expired');
      setTimeout(finish, 10);
    });
    expect(events).toEqual(['expired', 'closed']);
  });
});
