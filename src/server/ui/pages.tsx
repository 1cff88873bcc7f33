/**
 * The Workbench's three pages as server-rendered frames: the Executions screen (live executions),
 * the History screen (ended ones, with filters) and an execution's detail with its four tabs. Each
 * frame carries the structure, labels and ARIA roles; its module fills the regions marked with ids
 * (`rows`, `timeline`, …) from the API and keeps them live. The execution id reaches the detail
 * module through `data-execution`, already checked by the route. Under its title, the pull request
 * the execution opened, once its records show one. The detail page also holds the
 * execution's actions (resume a wait, switch harness, cancel), the dialog that asks before each, and
 * the one that asks which harness to switch to.
 */

import type { Child } from 'hono/jsx';
import { HARNESS_NAMES } from '../../core/outcome.js';
import { SWITCH_EXPLANATION } from '../../web/execution-actions.js';
import { Layout, type Screen } from './layout.js';
import { NewTaskDialog } from './new-task-dialog.js';

/**
 * The dialog that asks before an action that cannot be taken back (src/web/dom/confirm.ts fills and
 * opens it): "Not now" first, so an Enter pressed by habit does nothing.
 */
export function ConfirmDialog() {
  return (
    <dialog id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-text">
      <form method="dialog">
        <h2 id="confirm-title">Are you sure?</h2>
        <p id="confirm-text" />
        <DialogAnswers id="confirm" yes="Yes" />
      </form>
    </dialog>
  );
}

/**
 * A dialog's two answers, "Not now" first: `#<id>-no` and `#<id>-yes`, submitting the dialog's form
 * with `value` `no` or `yes` (its `returnValue`). "Not now" skips the form's validation.
 */
export function DialogAnswers({ id, yes }: { readonly id: string; readonly yes: string }) {
  return (
    <div class="actions">
      <button type="submit" value="no" id={`${id}-no`} formnovalidate>
        Not now
      </button>
      <button type="submit" value="yes" id={`${id}-yes`}>
        {yes}
      </button>
    </div>
  );
}

/** A list screen's table: its header row; the module fills `#rows`. */
export function RowsTable({ label, columns }: { label: string; columns: readonly string[] }) {
  return (
    <table class="rows" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
        </tr>
      </thead>
      <tbody id="rows" />
    </table>
  );
}

/**
 * A list screen: its title, a summary line its module fills (`#summary`), and its table (`#rows`);
 * `children` (filters) go between the title and the summary.
 */
export function ListScreen(props: {
  readonly title: string;
  readonly screen: Screen;
  readonly module: string;
  readonly label: string;
  readonly columns: readonly string[];
  readonly children?: Child;
}) {
  return (
    <Layout title={props.title} screen={props.screen} module={props.module}>
      <h1>{props.title}</h1>
      {props.children}
      <p class="muted" id="summary" aria-live="polite" />
      <RowsTable label={props.label} columns={props.columns} />
    </Layout>
  );
}

export function ExecutionsPage() {
  return (
    <ListScreen
      title="Executions"
      screen="executions"
      module="executions.js"
      label="Running, queued and waiting executions"
      columns={['Task', 'State', 'Harness', 'Elapsed / timeout', 'Tokens', 'Cost', 'Disk', 'Turns', 'Owner']}
    >
      <button type="button" id="new-task-button" aria-haspopup="dialog" aria-keyshortcuts="c">
        New task <kbd>c</kbd>
      </button>
      <NewTaskDialog />
      <ConfirmDialog />
    </ListScreen>
  );
}

export function HistoryPage() {
  return (
    <ListScreen
      title="History"
      screen="history"
      module="history.js"
      label="Ended executions, newest first"
      columns={['Task', 'Outcome', 'Harnesses', 'Switches', 'Duration', 'Cost', 'Disk', 'Turns', 'PR', 'Ended']}
    >
      <search class="filters">
        <label>
          Outcome{' '}
          <select id="filter-outcome">
            <option value="">any</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
            <option value="canceled">canceled</option>
            <option value="timed_out">timed out</option>
          </select>
        </label>
        <label>
          Harness{' '}
          <select id="filter-harness">
            <option value="">any</option>
          </select>
        </label>
        <label>
          Text <input type="search" id="filter-text" placeholder="task, branch, message" aria-keyshortcuts="/" />
        </label>
      </search>
    </ListScreen>
  );
}

/** The tabs of an execution's detail, in their `1`–`4` order. */
export const DETAIL_TABS = [
  { id: 'summary', label: 'Summary' },
  { id: 'events', label: 'Events' },
  { id: 'transcript', label: 'Transcript' },
  { id: 'changes', label: 'Changes' },
] as const;

export function DetailPage({ execution }: { readonly execution: string }) {
  return (
    <Layout title={`Execution ${execution}`} screen="detail" module="detail.js">
      <div id="detail" data-execution={execution}>
        <h1 id="detail-title">Execution {execution}</h1>
        <p class="muted" id="detail-status" aria-live="polite" />
        <p class="pull-request" id="pull-request" hidden />
        <div class="actions" id="detail-actions">
          <p class="wait" id="wait-note" role="status" hidden />
          <button type="button" id="resume-button" aria-keyshortcuts="R" hidden>
            Resume now
          </button>
          <button type="button" id="switch-button" aria-keyshortcuts="S" hidden>
            Switch harness…
          </button>
          <button type="button" id="cancel-button" hidden>
            Cancel
          </button>
          <span class="muted" id="action-status" role="status" />
        </div>
        <div role="tablist" aria-label="Execution views">
          {DETAIL_TABS.map((tab, index) => (
            <button
              type="button"
              role="tab"
              id={`tab-${tab.id}`}
              aria-controls={`panel-${tab.id}`}
              aria-selected={index === 0 ? 'true' : 'false'}
              tabindex={index === 0 ? 0 : -1}
              aria-keyshortcuts={String(index + 1)}
            >
              {tab.label}
            </button>
          ))}
        </div>
        <section role="tabpanel" id="panel-summary" aria-labelledby="tab-summary" tabindex={0}>
          <div id="summary-body" />
        </section>
        <section role="tabpanel" id="panel-events" aria-labelledby="tab-events" hidden>
          <div class="filters">
            <label>
              Filter <input type="search" id="events-filter" placeholder="type, harness, text" aria-keyshortcuts="/" />
            </label>
          </div>
          <div class="timeline" id="timeline" role="listbox" aria-label="Events, in order" tabindex={0} />
        </section>
        <section role="tabpanel" id="panel-transcript" aria-labelledby="tab-transcript" hidden>
          <div class="transcript" id="transcript" aria-live="polite" />
          <p class="send-note" id="send-note" hidden />
          <form class="send" id="send-form">
            <label for="send-text" class="muted">
              Follow-up
            </label>
            <textarea
              id="send-text"
              aria-describedby="send-note"
              name="text"
              placeholder="Send a follow-up into the open session (Ctrl+Enter sends)"
              required
            />
            <button type="submit">Send</button>
          </form>
          <p id="send-status" class="muted" role="status" />
        </section>
        <section role="tabpanel" id="panel-changes" aria-labelledby="tab-changes" hidden tabindex={0}>
          <div id="changes-body" />
        </section>
        <ConfirmDialog />
        <dialog id="switch-dialog" aria-labelledby="switch-title">
          <form method="dialog">
            <h2 id="switch-title">Switch harness</h2>
            <p class="muted">{SWITCH_EXPLANATION}</p>
            <label>
              Harness{' '}
              <select id="switch-harness" name="harness">
                {HARNESS_NAMES.map((name) => (
                  <option value={name}>{name}</option>
                ))}
              </select>
            </label>
            <label>
              Model <input id="switch-model" name="model" placeholder="the harness's default" />
            </label>
            <label>
              Why <input id="switch-reason" name="reason" placeholder="for the timeline" />
            </label>
            <DialogAnswers id="switch" yes="Switch" />
          </form>
        </dialog>
      </div>
    </Layout>
  );
}
