/** The rules of src/cli/terminal-output.ts: when to colour (no-color.org, FORCE_COLOR) and how a line is cut. */
import { describe, expect, it } from 'vitest';
import { colourWanted, fitLine, terminalOutput } from '../../src/cli/terminal-output.js';

describe('colourWanted', () => {
  it('colours a terminal, not a pipe', () => {
    expect(colourWanted(true, {})).toBe(true);
    expect(colourWanted(false, {})).toBe(false);
  });

  it('NO_COLOR set to anything but the empty string turns it off; TERM=dumb too', () => {
    expect(colourWanted(true, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted(true, { NO_COLOR: '' })).toBe(true);
    expect(colourWanted(true, { TERM: 'dumb' })).toBe(false);
  });

  it('FORCE_COLOR wins over the rest, in both directions', () => {
    expect(colourWanted(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourWanted(false, { FORCE_COLOR: '' })).toBe(true);
    expect(colourWanted(true, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(colourWanted(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourWanted(true, { FORCE_COLOR: 'false' })).toBe(false);
  });
});

describe('terminalOutput', () => {
  it("a terminal's width; none for a pipe or a terminal that gives none", () => {
    expect(terminalOutput({ isTTY: true, columns: 72 }, {})).toEqual({ width: 72, colour: true });
    expect(terminalOutput({ columns: 72 }, {})).toEqual({ width: undefined, colour: false });
    expect(terminalOutput({ isTTY: true, columns: 0 }, {}).width).toBeUndefined();
  });
});

describe('fitLine', () => {
  it('cuts a longer line to the width, its last character an ellipsis', () => {
    expect(fitLine('abcdefghij', 5)).toBe('abcd…');
    expect(fitLine('abcde', 5)).toBe('abcde');
    expect(fitLine('abcdefghij', undefined)).toBe('abcdefghij');
  });

  it('counts code points, so an emoji is never split', () => {
    expect(fitLine('🙂🙂🙂', 3)).toBe('🙂🙂🙂');
    expect(fitLine('🙂🙂🙂🙂', 3)).toBe('🙂🙂…');
  });
});
