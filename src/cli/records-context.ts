/**
 * `harmflow context ID`: an execution's context.json — what each attempt did, its work items with
 * what the harness reported apart from what HarmFlow saw — or the file as it is with `--json`. Loaded
 * by the verb's action (cli/records.ts), so `ls` and `show` do not load the context schema.
 */
import { existsSync, readFileSync } from 'node:fs';
import { NotFoundError } from '../core/errors.js';
import { StoredContext } from '../execution/context-schema.js';
import { describeOperation } from '../web/describe-operation.js';
import { lastMessageLabel, PART_LABEL_WIDTH, PART_LABELS, workItemParts } from '../web/describe-work-item.js';
import { sayLine } from './print-line.js';

/** Prints the context file `file` of execution `executionId`. */
export function printContext(file: string, executionId: string, options: { readonly json?: boolean }): void {
  if (!existsSync(file)) throw new NotFoundError(`execution ${executionId} has no context.json yet`);
  const text = readFileSync(file, 'utf8');
  if (options.json) return void process.stdout.write(text);
  const context = StoredContext.parse(JSON.parse(text));
  sayLine(`${file}`);
  for (const attempt of context.attempts) {
    sayLine(
      `attempt ${attempt.number}  ${attempt.harness}${attempt.model ? ` (${attempt.model})` : ''}  ${attempt.outcome}`,
    );
    if (attempt.lastOperation) sayLine(`  last operation: ${describeOperation(attempt.lastOperation)}`);
    if (attempt.lastMessage) sayLine(`  ${lastMessageLabel(attempt.harness)}: ${attempt.lastMessage}`);
    for (const item of attempt.workItems) {
      // The parts both Summaries show: what the harness reported, apart from what HarmFlow saw.
      const parts = workItemParts(item);
      sayLine(`  - ${parts.text}`);
      const part = (label: string, entries: readonly string[]) => {
        for (const [index, entry] of entries.entries()) {
          sayLine(`      ${(index === 0 ? label : '').padEnd(PART_LABEL_WIDTH)}${entry}`);
        }
      };
      part(PART_LABELS.reported, parts.reported === undefined ? [] : [parts.reported]);
      part(PART_LABELS.unconfirmed, parts.unconfirmed === undefined ? [] : [parts.unconfirmed]);
      part(PART_LABELS.observed, parts.observed);
      part(PART_LABELS.tried, parts.tried);
    }
  }
}
