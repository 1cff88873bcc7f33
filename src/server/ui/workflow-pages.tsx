/**
 * The Workbench's workflow pages as server-rendered frames: the Workflows screen (every run, live)
 * and a run's Review page — its state and steps, the items its review steps wait on, each a diff
 * with its cause, decided from the keyboard, the decisions made, and the resume. Their modules
 * (`/ui/dom/workflows.js`, `/ui/dom/review.js`) fill the regions marked with ids from
 * `/api/workflows`; the run id reaches the review module through `data-run`, checked by the route.
 */
import { Layout } from './layout.js';
import { ConfirmDialog, DialogAnswers, ListScreen, RowsTable } from './pages.js';

export function WorkflowsPage() {
  return (
    <ListScreen
      title="Workflows"
      screen="workflows"
      module="workflows.js"
      label="Workflow runs, newest first"
      columns={['Workflow', 'Run', 'State', 'Steps', 'Spent', 'Started', 'Waiting for / why']}
    />
  );
}

export function ReviewPage({ run }: { readonly run: string }) {
  return (
    <Layout title={`Run ${run}`} screen="workflows" module="review.js">
      <div id="review" data-run={run}>
        <h1 id="run-title">Run {run}</h1>
        <p id="run-status" class="muted" aria-live="polite" />
        <div class="actions">
          <label>
            Reviewer <input id="reviewer" name="reviewer" autocomplete="name" placeholder="your name" maxlength={100} />
          </label>
          <button type="button" id="approve-all" aria-keyshortcuts="A">
            Approve all waiting
          </button>
          <button type="button" id="reject-all" aria-keyshortcuts="R">
            Reject all waiting…
          </button>
          <button type="button" id="resume-run" aria-keyshortcuts="P">
            Resume run
          </button>
          <span class="muted" id="review-status" role="status" />
        </div>
        <h2>Steps</h2>
        <RowsTable label="The run's items per step" columns={['Step', 'Done', 'Reused', 'Failed', 'Spent']} />
        <h2 id="waiting-title">Waiting for review</h2>
        <div class="review-items" id="waiting" role="listbox" aria-labelledby="waiting-title" tabindex={0} />
        <h2>Decided in this run</h2>
        <div id="decided" />
        <ConfirmDialog />
        <dialog id="note-dialog" aria-labelledby="note-title">
          <form method="dialog" id="note-form">
            <h2 id="note-title">Reject</h2>
            <p class="muted" id="note-text" />
            <label for="note-input">Why (kept with the decision)</label>
            <textarea id="note-input" name="note" required maxlength={2000} />
            <DialogAnswers id="note" yes="Reject" />
          </form>
        </dialog>
      </div>
    </Layout>
  );
}
