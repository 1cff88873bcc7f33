// @ts-check
/**
 * The first run: categorise v1 (NovaPay refunds taken for purchases) and a model API that
 * answers "overloaded" to every fact-check from customer c-1412 on, so the run crashes there.
 */
import { build } from './workflow.mjs';

export default build({ categoriseVersion: 1, overloaded: true });
