// @ts-check
/** The fix: categorise v2 labels NovaPay refunds as refunds; the model API is back. */
import { build } from './workflow.mjs';

export default build({ categoriseVersion: 2 });
