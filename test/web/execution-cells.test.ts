/** How the lists write an execution's pull request and owner (src/web/execution-cells.ts). */
import { describe, expect, it } from 'vitest';
import { ownerCell, pullRequestCell, pullRequestHref } from '../../src/web/execution-cells.js';

describe('the execution cells', () => {
  it('write a pull request by its number, or whole when its URL ends otherwise', () => {
    expect(pullRequestCell('https://github.com/acme/app/pull/42')).toBe('#42');
    expect(pullRequestCell('https://forge.example/acme/app/merge_requests/7')).toBe(
      'https://forge.example/acme/app/merge_requests/7',
    );
  });

  it('link only an http(s) URL', () => {
    expect(pullRequestHref('https://github.com/acme/app/pull/42')).toBe('https://github.com/acme/app/pull/42');
    expect(pullRequestHref('javascript:alert(1)//pull/1')).toBeUndefined();
  });

  it('write the owner as pid@host, gone when stale, the pid alone without a host', () => {
    expect(ownerCell({ pid: 4242, host: 'build-1', alive: true })).toBe('4242@build-1');
    expect(ownerCell({ pid: 4242, host: 'build-1', alive: null })).toBe('4242@build-1');
    expect(ownerCell({ pid: 4242, host: 'build-1', alive: false })).toBe('4242@build-1 (gone)');
    expect(ownerCell({ pid: 4242, alive: true })).toBe('4242');
    // Cluster mode: the worker holding the lease; by its name when it was given one.
    expect(ownerCell({ pid: 4242, host: 'build-1', worker: 'build-1:4242', alive: true })).toBe('4242@build-1');
    expect(ownerCell({ worker: 'gpu-worker', alive: true })).toBe('gpu-worker');
  });
});
