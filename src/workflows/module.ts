/**
 * Workflow files: an ES module (`.mjs`, or `.js` in an ESM package) whose default export is
 * `{ workflow, providers?, prices? }` — the definition, the model providers its model steps name, and
 * the prices of their models. `harmflow workflow …` loads it; anything else is a one-line
 * WorkflowDefinitionError naming the file, before a run is created.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { describeError } from '../core/errors.js';
import { importModule } from '../core/module-importer.js';
import type { ModelProvider, WorkflowDefinition } from './define.js';
import { WorkflowDefinitionError } from './validate.js';

/** USD per million tokens, by model name. */
export const Prices = z.record(
  z.string(),
  z.strictObject({ inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) }),
);
export type Prices = z.infer<typeof Prices>;

/** The shape checked at the edge; the definition's own rules are checked by validateDefinition. */
const ModuleShape = z.object({
  workflow: z.looseObject({ name: z.string(), steps: z.array(z.looseObject({ name: z.string(), kind: z.string() })) }),
  providers: z
    .record(
      z.string(),
      z.looseObject({ complete: z.custom<ModelProvider['complete']>((value) => typeof value === 'function') }),
    )
    .optional(),
  prices: Prices.optional(),
});

/** What a workflow file exports. */
export interface WorkflowModule {
  /** The file's absolute path. */
  readonly path: string;
  readonly workflow: WorkflowDefinition;
  readonly providers: Readonly<Record<string, ModelProvider>>;
  readonly prices: Prices;
}

/**
 * Loads the workflow file at `path` (relative to the current directory). With `version` (an item
 * worker passes the file's digest), the file is imported under that version: a file changed on disk
 * is imported anew under its new version, where a plain import would return the module loaded first.
 */
export async function loadWorkflowModule(path: string, version?: string): Promise<WorkflowModule> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new WorkflowDefinitionError(`no workflow file ${path}`);
  let loaded: { default?: unknown };
  try {
    const url = pathToFileURL(absolute);
    if (version !== undefined) url.searchParams.set('version', version);
    loaded = (await importModule(url.href)) as { default?: unknown };
  } catch (error) {
    throw new WorkflowDefinitionError(`cannot load workflow file ${path}: ${describeError(error)}`, { cause: error });
  }
  const shape = ModuleShape.safeParse(loaded.default);
  if (!shape.success) {
    throw new WorkflowDefinitionError(
      `${path}: the default export must be { workflow, providers?, prices? }: ${z.prettifyError(shape.error).replace(/\s*\n\s*/g, '; ')}`,
    );
  }
  const exported = loaded.default as { workflow: WorkflowDefinition; providers?: Record<string, ModelProvider> };
  return {
    path: absolute,
    workflow: exported.workflow,
    providers: exported.providers ?? {},
    prices: shape.data.prices ?? {},
  };
}
