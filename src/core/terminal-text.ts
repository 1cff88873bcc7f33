/**
 * Text from outside HarmFlow (a harness's messages, tool output, stderr, commit subjects) made inert
 * before a terminal shows it. A harness that prints ESC sequences could otherwise clear the screen
 * (CSI), write the user's clipboard (OSC 52), hide a link behind other text (OSC 8), retitle the
 * window, ring the bell, or overwrite a line (CR, backspace) — in the user's terminal, not its own.
 *
 * Every character a terminal acts on — the C0 controls but newline and tab, DEL, and the C1 controls
 * (U+0080–U+009F, which some terminals read as ESC + a letter) — is shown as its escape, `\x1b`.
 * Everything else is left as it is. The result is for eyes, not for parsing back: a backslash already
 * in the text is not escaped. `--json` output does not go through this: JSON.stringify already writes
 * every C0 control (ESC included) as an escape such as `\u001b`, and a program reads it back exactly.
 */

/** The characters a terminal acts on: C0 but \t (0x09) and \n (0x0a), DEL (0x7f), C1 (0x80–0x9f). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` with every control character but newline and tab shown as `\xNN`. Pure. */
export function inertText(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
