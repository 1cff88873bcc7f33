/**
 * The environment a harness CLI starts with. Nothing is inherited from HarmFlow's own process: the
 * reference note (§6.11) saw host `ANTHROPIC_*`, `OPENAI_*` and `CODEX_*` variables change where a
 * CLI connects and which credentials it sends, so a host variable reaches the CLI only when the task
 * names it (its `env` / `passEnv`, already resolved into `CommandInput.env` by the engine). One value
 * of HarmFlow's own does go along: its time zone, as `TZ` when the task gives none, so the wall
 * times a CLI prints are read in the zone it wrote them in (wall-time.ts `harnessTimeZone`).
 */

/** The locale every CLI gets: UTF-8 output without depending on the host's locales being installed. */
export const CLI_LANG = 'C.UTF-8';

/**
 * Builds a complete environment: `own` (HarmFlow's variables), then the task's `taskEnv` on top,
 * except the `isolated` names, which always keep `own`'s value. Isolation wins over the task because a
 * private HOME and config dir per attempt are what keep attempts, and HarmFlow's host, apart
 * (sessions, settings and credentials stores live there); a task that sets one is ignored for it.
 */
export function buildEnv(
  own: Readonly<Record<string, string>>,
  taskEnv: Readonly<Record<string, string>>,
  isolated: readonly string[],
): Record<string, string> {
  const entries = new Map(Object.entries(own));
  for (const [name, value] of Object.entries(taskEnv)) {
    if (!isolated.includes(name)) entries.set(name, value);
  }
  return Object.fromEntries(entries);
}
