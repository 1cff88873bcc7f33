/**
 * The Executions screen's New task form (src/web/dom/new-task.ts fills and runs it): a modal dialog
 * with the task file's fields a person sets by hand — prompt, name, repository, base ref, the harness
 * chain (rows the module builds from `data-harnesses`), timeout, and under "More settings" the
 * switching, waiting and sandbox keys — beside the YAML view of the same task. Every input has its
 * label and a problem slot (`#task-<key>-problem`) its `aria-describedby` names; problems with no
 * field (gates, unknown keys, YAML that cannot be read) go under the YAML view. `novalidate`: the
 * service's check (the CLI's schema) is the one validation, shown beside each field.
 */
import type { Child } from 'hono/jsx';
import { HARNESS_NAMES } from '../../core/outcome.js';
import { FAILOVER_OUTCOMES, SANDBOX_CHOICES } from '../../core/task.js';

interface FieldProps {
  /** The task file's key: the input is `#task-<key>`. */
  readonly name: string;
  readonly label: string;
  readonly hint?: string;
  readonly placeholder?: string;
  readonly required?: boolean;
  readonly children?: Child;
}

/** A labelled text input (or `children`, a control with id `task-<name>`), its hint and its problem slot. */
function Field({ name, label, hint, placeholder, required, children }: FieldProps) {
  const id = `task-${name}`;
  const described = [hint === undefined ? undefined : `${id}-hint`, `${id}-problem`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>
        {label}
        {required ? <span aria-hidden="true"> *</span> : ''}
      </label>
      {children ?? (
        <input
          id={id}
          name={name}
          placeholder={placeholder}
          aria-required={required ? 'true' : undefined}
          aria-describedby={described}
          autocomplete="off"
          spellcheck={false}
        />
      )}
      {hint === undefined ? '' : <small id={`${id}-hint`}>{hint}</small>}
      <p class="problem" id={`${id}-problem`} />
    </div>
  );
}

/** A checkbox for a boolean key, `#task-<key>`. */
function Check({ name, label }: { readonly name: string; readonly label: string }) {
  return (
    <div class="field check">
      <label>
        <input type="checkbox" id={`task-${name}`} name={name} aria-describedby={`task-${name}-problem`} /> {label}
      </label>
      <p class="problem" id={`task-${name}-problem`} />
    </div>
  );
}

export function NewTaskDialog() {
  return (
    <dialog id="new-task-dialog" class="new-task" aria-labelledby="new-task-title" aria-describedby="new-task-intro">
      <form id="new-task-form" novalidate>
        <h2 id="new-task-title">New task</h2>
        <p class="muted" id="new-task-intro">
          The same task as a task file: the YAML beside follows the form, and the form the YAML. The service checks it
          as <code>harmflow run</code> does.
        </p>
        <div class="new-task-body">
          <div class="task-fields">
            <Field name="prompt" label="Prompt" required>
              <textarea
                id="task-prompt"
                name="prompt"
                rows={4}
                aria-required="true"
                aria-describedby="task-prompt-hint task-prompt-problem"
              />
            </Field>
            <Field name="name" label="Name" required placeholder="fix-date-parsing" hint="part of the branch name" />
            <Field
              name="repo"
              label="Repository"
              placeholder="/home/me/app"
              hint="an absolute path on the service's machine"
            />
            <Field name="baseRef" label="Base ref" placeholder="HEAD" />
            <fieldset id="task-chain-field">
              <legend>Harnesses, in order</legend>
              <ol id="task-chain" data-harnesses={HARNESS_NAMES.join(' ')} />
              <button type="button" id="task-chain-add">
                Add a fallback
              </button>
            </fieldset>
            <Field name="timeout" label="Timeout" placeholder="30m" hint="45m, 1h30m, 90s, or seconds" />
            <details id="task-more">
              <summary>More settings</summary>
              <Field name="maxSwitches" label="Max switches" placeholder="number of fallbacks" />
              <fieldset id="task-failoverOn" aria-describedby="task-failoverOn-problem">
                <legend>Also switch on</legend>
                {FAILOVER_OUTCOMES.map((outcome) => (
                  <label>
                    <input type="checkbox" name="failoverOn" value={outcome} /> {outcome}
                  </label>
                ))}
                <p class="problem" id="task-failoverOn-problem" />
              </fieldset>
              <Check name="waitForReset" label="Wait for a quota reset when every harness is out" />
              <Field name="maxWait" label="Longest wait" placeholder="none" />
              <Field name="quotaCoolDown" label="Quota cool-down" placeholder="1h" />
              <Field name="interruptBudget" label="Interrupt budget" placeholder="60s" />
              <Check name="countManualSwitches" label="Switches asked by hand count against max switches" />
              <Field name="switchAtUtilization" label="Switch at utilization" placeholder="e.g. 0.95" />
              <Field name="sandbox" label="Sandbox">
                <select id="task-sandbox" name="sandbox" aria-describedby="task-sandbox-problem">
                  <option value="">default (bwrap)</option>
                  {SANDBOX_CHOICES.map((choice) => (
                    <option value={choice}>{choice}</option>
                  ))}
                </select>
              </Field>
            </details>
          </div>
          <div class="task-yaml">
            <label for="task-yaml">YAML</label>
            <textarea id="task-yaml" name="yaml" spellcheck={false} aria-describedby="task-yaml-problems" />
            <ul id="task-yaml-problems" class="problems" aria-live="polite" />
          </div>
        </div>
        <p id="task-status" class="error" role="alert" />
        <div class="actions">
          <button type="button" id="task-close">
            Close
          </button>
          <button type="submit" id="task-submit">
            Submit
          </button>
        </div>
      </form>
    </dialog>
  );
}
