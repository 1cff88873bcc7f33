import { fileURLToPath } from 'node:url';

/**
 * The `harmflow` launcher inside this package (bin/harmflow.js), the same two levels up from src/ and
 * dist/: what HarmFlow runs when it starts HarmFlow — a hook's gate, the demo's service, a workflow
 * resume the Workbench asks for — so it is always this HarmFlow, whatever is on the PATH.
 */
export const HARMFLOW_BIN = fileURLToPath(new URL('../../bin/harmflow.js', import.meta.url));
