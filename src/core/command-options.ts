/**
 * Reading the options at the start of a command's arguments, the way getopt-style tools read them:
 * `--` ends them, `--name=value` carries its value, bundled short options (`-lc`) are split, an option
 * that takes a value takes the rest of its word (`-oL`) or the next word (`-o L`), and the first word
 * that is not an option (or a lone `-`) ends them. Shared by the readers of wrappers
 * (command-wrappers.ts) and of interpreters (src/gates/interpreters.ts). Pure.
 */

/** An option as written: its name and, when attached (`--x=v`, `-xv` for a valued `-x`), its value. */
export interface Option {
  readonly name: string;
  /** Index of the word holding its value: this word (attached) or the next. */
  readonly valueAt?: number;
  readonly attached?: string;
}

/**
 * Reads the options at the start of `words` from `start`: returns them and the index of the first
 * word after them (`--` ends them and is skipped). Bundled short options are split; a valued one
 * takes the rest of its word or the next word.
 */
export function readOptions(
  words: readonly string[],
  start: number,
  valued: ReadonlySet<string>,
): { options: Option[]; next: number } {
  const options: Option[] = [];
  let index = start;
  while (index < words.length) {
    const word = words[index] as string;
    if (word === '--') return { options, next: index + 1 };
    if (!word.startsWith('-') || word === '-') break;
    if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const name = equals < 0 ? word : word.slice(0, equals);
      if (equals >= 0) options.push({ name, valueAt: index, attached: word.slice(equals + 1) });
      else if (valued.has(name)) options.push({ name, valueAt: ++index });
      else options.push({ name });
      index += 1;
      continue;
    }
    for (let at = 1; at < word.length; at++) {
      const name = `-${word[at]}`;
      if (!valued.has(name)) {
        options.push({ name });
        continue;
      }
      const rest = word.slice(at + 1);
      options.push(rest === '' ? { name, valueAt: ++index } : { name, valueAt: index, attached: rest });
      break;
    }
    index += 1;
  }
  return { options, next: index };
}
