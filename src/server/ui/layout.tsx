/**
 * The Workbench's page frame (hono/jsx, rendered on the server): the head, the top bar with the
 * three screens, the main region a page fills, and the two dialogs every page shares — the token
 * prompt (the API token, asked once per browser and exchanged for the session cookie:
 * src/web/dom/session.ts) and the `?` shortcuts overlay. Pages hold no execution data: the page's module (`/ui/dom/<page>.js`) fetches it
 * from the API with the token and keeps it live.
 */
import type { Child } from 'hono/jsx';

export type Screen = 'executions' | 'history' | 'detail' | 'workflows';

export interface LayoutProps {
  readonly title: string;
  readonly screen: Screen;
  /** The page's module under `/ui/dom/`, e.g. `executions.js`. */
  readonly module: string;
  readonly children?: Child;
}

export function Layout({ title, screen, module, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · HarmFlow`}</title>
        <link rel="stylesheet" href="/ui/style.css" />
        <script type="module" src={`/ui/dom/${module}`} />
      </head>
      <body>
        <header class="top">
          <span class="brand">HarmFlow</span>
          <nav aria-label="Screens">
            <a href="/" aria-current={screen === 'executions' ? 'page' : undefined}>
              Executions
            </a>
            <a href="/history" aria-current={screen === 'history' ? 'page' : undefined}>
              History
            </a>
            <a href="/workflows" aria-current={screen === 'workflows' ? 'page' : undefined}>
              Workflows
            </a>
          </nav>
          <button type="button" id="help-button" aria-haspopup="dialog" aria-keyshortcuts="?">
            Shortcuts <kbd>?</kbd>
          </button>
        </header>
        <main id="main">{children}</main>
        <dialog id="token-dialog" aria-labelledby="token-title">
          <form method="dialog" id="token-form">
            <h2 id="token-title">API token</h2>
            <p>
              Paste the token <code>harmflow serve</code> printed (or <code>$HARMFLOW_TOKEN</code>). This browser then
              keeps a cookie for this service until it closes; no page keeps the token.
            </p>
            <label>
              Token <input type="password" name="token" id="token-input" autocomplete="off" required />
            </label>
            <p class="error" id="token-error" role="alert" />
            <button type="submit">Use token</button>
          </form>
        </dialog>
        <dialog id="help-dialog" aria-labelledby="help-title">
          <h2 id="help-title">Keyboard shortcuts</h2>
          <div id="help-body" />
          <form method="dialog">
            <button type="submit">Close</button>
          </form>
        </dialog>
      </body>
    </html>
  );
}
