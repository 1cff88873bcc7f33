import { describe, expect, it } from 'vitest';
import { checkStoreUrl } from '../../src/cluster/store-url.js';
import { UsageError } from '../../src/core/errors.js';

describe('checkStoreUrl', () => {
  it('takes postgres:// and postgresql:// URLs as they are', () => {
    expect(checkStoreUrl('postgres://u@db:5432/harmflow?application_name=x')).toBe(
      'postgres://u@db:5432/harmflow?application_name=x',
    );
    expect(checkStoreUrl('postgresql://db/harmflow')).toBe('postgresql://db/harmflow');
  });

  it('refuses another scheme and a non-URL in one line, the password masked', () => {
    expect(() => checkStoreUrl('redis://u:secret@db/0')).toThrow(UsageError);
    expect(() => checkStoreUrl('redis://u:secret@db/0')).toThrow(/"redis:\/\/u:\*\*\*@db\/0".*postgres:\/\//);
    expect(() => checkStoreUrl('not a url')).toThrow(/is not a URL/);
  });
});
