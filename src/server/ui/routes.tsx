/**
 * The Workbench's routes: its pages (`/`, `/history`, `/executions/:id`, `/workflows`,
 * `/workflows/:run`), its stylesheet and its
 * browser modules (`/ui/…`, compiled from src/web/ into dist/web/ by `npm run build`). None of them
 * carries execution data, so they are served without the API token (ARCHITECTURE.md: static assets
 * need none) — but behind the app's Host and Origin guards, with a Content-Security-Policy that lets
 * a page load only this origin's scripts and styles and talk only to this origin.
 *
 * A page that is not there — an execution the store does not know, an id that is not one, any other
 * path outside `/api` and `/ui` — answers 404 with the not-found page (not-found-page.tsx), a link
 * back to its list. Saying that an id is unknown tells a caller without the token nothing it could
 * use: an id is 26 characters, 80 bits of them random, and the page shows no data of a known one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { NotFoundError } from '../../core/errors.js';
import { isExecutionId } from '../../core/execution-id-shape.js';
import { NotFoundPage, type NotFoundProps } from './not-found-page.js';
import { DetailPage, ExecutionsPage, HistoryPage } from './pages.js';
import { STYLE } from './style.js';
import { ReviewPage, WorkflowsPage } from './workflow-pages.js';

/** dist/web/: the same three levels up from src/server/ui/ and from dist/server/ui/. */
const WEB_ASSETS_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** A module path under `/ui/`: lower-case words and folders, `.js` or its `.js.map`; nothing else is served. */
const ASSET = /^(?:[a-z0-9-]+\/)*[a-z0-9-]+\.js(?:\.map)?$/;

const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

const withSecurityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
};

export interface UiRoutesOptions {
  /** True when the store holds execution `id` (a well-formed id): its page is served, else the not-found page. */
  readonly executionExists: (id: string) => Promise<boolean>;
}

const TO_EXECUTIONS = { href: '/', label: 'Executions', screen: 'executions' } as const;
const TO_WORKFLOWS = { href: '/workflows', label: 'Workflows', screen: 'workflows' } as const;

/** Returns the sub-app; mount it at the root behind the app's guards, last. It serves the modules in dist/web/. */
export function uiRoutes({ executionExists }: UiRoutesOptions): Hono {
  const app = new Hono();
  for (const path of ['/', '/history', '/executions/*', '/workflows', '/workflows/*', '/ui/*'])
    app.use(path, withSecurityHeaders);

  app.get('/', (c) => c.html(page(<ExecutionsPage />)));
  app.get('/history', (c) => c.html(page(<HistoryPage />)));
  app.get('/executions/:id', async (c) => {
    const id = c.req.param('id');
    const shown = JSON.stringify(id.slice(0, 64));
    if (!isExecutionId(id)) {
      return notFound(c, {
        title: 'Not an execution id',
        text: `${shown} is not an execution id: an id is 26 lower-case ULID characters.`,
        back: TO_EXECUTIONS,
      });
    }
    if (!(await executionExists(id))) {
      return notFound(c, {
        title: `No execution ${id}`,
        text: 'This service knows no execution with this id: it may belong to another HarmFlow service (another HARMFLOW_HOME), or be mistyped.',
        back: TO_EXECUTIONS,
      });
    }
    return c.html(page(<DetailPage execution={id} />));
  });
  app.get('/workflows', (c) => c.html(page(<WorkflowsPage />)));
  app.get('/workflows/:id', (c) => {
    const id = c.req.param('id');
    if (!isExecutionId(id)) {
      return notFound(c, {
        title: 'Not a workflow run id',
        text: `${JSON.stringify(id.slice(0, 64))} is not a workflow run id: an id is 26 lower-case ULID characters.`,
        back: TO_WORKFLOWS,
      });
    }
    return c.html(page(<ReviewPage run={id} />));
  });
  app.get('/ui/style.css', (c) =>
    c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/ui/*', async (c) => {
    const asset = c.req.path.slice('/ui/'.length);
    if (!ASSET.test(asset)) throw new NotFoundError(`no Workbench file ${JSON.stringify(asset.slice(0, 64))}`);
    let body: string;
    try {
      body = await readFile(join(WEB_ASSETS_DIR, asset), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new NotFoundError(`no Workbench file ${asset} (run \`npm run build\`)`);
    }
    const type = asset.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8';
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
  });
  // Any other page: the not-found page. An API path stays the app's JSON 404.
  app.get('*', (c) =>
    c.req.path.startsWith('/api/')
      ? c.notFound()
      : notFound(c, {
          title: 'No such page',
          text: `The Workbench has no page ${JSON.stringify(c.req.path.slice(0, 64))}.`,
          back: TO_EXECUTIONS,
        }),
  );
  return app;
}

/** The not-found page, status 404, with the pages' security headers. */
async function notFound(c: Context, props: NotFoundProps): Promise<Response> {
  const response = c.html(await page(<NotFoundPage {...props} />), 404);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

/** A page's HTML with its doctype. */
function page(element: { toString(): string | Promise<string> }): Promise<string> {
  return Promise.resolve(element.toString()).then((html) => `<!doctype html>${html}`);
}
