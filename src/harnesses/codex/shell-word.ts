/**
 * Unwraps the shell wrapper Codex puts around every command it runs
 * (`/bin/bash -lc 'echo hi > a.txt && cat a.txt'`, reference note §4.3), so a `tool.call` shows the
 * command the agent wrote. Pure.
 */

/** `[/usr]/bin/]bash|sh|zsh -c|-lc <one word>`. */
const WRAPPER = /^(?:\/(?:usr\/)?bin\/)?(?:bash|sh|zsh) +-l?c +([\s\S]+)$/;

/** Characters that, unquoted, would make the rest more than one literal word. */
const UNQUOTED_SPECIAL = /[\s;&|<>()$`*?[\]{}~#]/;

/** Characters a backslash escapes inside double quotes (POSIX). */
const DOUBLE_QUOTE_ESCAPABLE = '$`"\\';

/**
 * Returns the value of `text` read as exactly one shell word of literal text: single-quoted parts,
 * double-quoted parts and backslash escapes, with `'\''` giving a quote. Undefined when `text` is not
 * one literal word (an unquoted space, operator, expansion or an unterminated quote).
 */
export function readShellWord(text: string): string | undefined {
  let value = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end < 0) return undefined;
      value += text.slice(index + 1, end);
      index = end + 1;
    } else if (char === '"') {
      index += 1;
      let closed = false;
      while (index < text.length) {
        const inner = text[index] as string;
        if (inner === '"') {
          closed = true;
          index += 1;
          break;
        }
        const next = text[index + 1];
        if (inner === '\\' && next === '\n') {
          index += 2;
        } else if (inner === '\\' && next !== undefined && DOUBLE_QUOTE_ESCAPABLE.includes(next)) {
          value += next;
          index += 2;
        } else {
          value += inner;
          index += 1;
        }
      }
      if (!closed) return undefined;
    } else if (char === '\\') {
      const next = text[index + 1];
      if (next === undefined) return undefined;
      if (next !== '\n') value += next;
      index += 2;
    } else if (UNQUOTED_SPECIAL.test(char)) {
      return undefined;
    } else {
      value += char;
      index += 1;
    }
  }
  return value;
}

/** Returns the command inside a `bash -lc '…'` style wrapper, or the command unchanged. */
export function unwrapShell(command: string): string {
  const word = command.match(WRAPPER)?.[1];
  if (word === undefined) return command;
  return readShellWord(word.trimEnd()) ?? command;
}
