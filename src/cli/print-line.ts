/** Printing a command's output, a line at a time, for the record verbs (cli/records*.ts). */
import { inertText } from '../core/terminal-text.js';

/** Prints a line as it is: JSON, or text already made inert. */
export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Prints a line for people: inert, as it may hold what a harness wrote (messages, commit subjects). */
export function sayLine(text: string): void {
  printLine(inertText(text));
}
