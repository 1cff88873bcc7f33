import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../src/core/line-diff.js';

describe('lineDiff', () => {
  it('keeps the order of the lines, the removed line of a replaced one first', () => {
    expect(lineDiff(['{', '"a": 1', '"b": 2', '}'], ['{', '"a": 3', '"b": 2', '}'])).toEqual([
      '  {',
      '- "a": 1',
      '+ "a": 3',
      '  "b": 2',
      '  }',
    ]);
  });

  it('marks everything added with nothing before, everything removed with nothing after', () => {
    expect(lineDiff([], ['x', 'y'])).toEqual(['+ x', '+ y']);
    expect(lineDiff(['x', 'y'], [])).toEqual(['- x', '- y']);
    expect(lineDiff([], [])).toEqual([]);
  });

  it('finds the longest run of kept lines across an insertion and a deletion', () => {
    expect(lineDiff(['a', 'b', 'c', 'd'], ['a', 'x', 'b', 'd'])).toEqual(['  a', '+ x', '  b', '- c', '  d']);
  });
});
