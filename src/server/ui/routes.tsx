/**
 * The Workbench's routes: its pages (`/`, `/history`, `/executions/:id`, `/workflows`,
 * `/workflows/:run`), its stylesheet and its
 * browser modules (`/ui/…`, compiled from src/web/ into dist/web/ by `npm run build`). None of them
 * carries execution data, so they are served without the API token (ARCHITECTURE.md: static assets
 * need none) — but behind the app's Host and Origin guards, with a Content-Security-Policy that lets
 * a page load only this origin's scripts and styles and talk only to this origin.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type MiddlewareHandler } from 'hono';
import { NotFoundError } from '../../core/errors.js';
import { isExecutionId } from '../../core/execution-id-shape.js';
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

/** Returns the sub-app; mount it at the root behind the app's guards. It serves the modules in dist/web/. */
export function uiRoutes(): Hono {
  const app = new Hono();
  for (const path of ['/', '/history', '/executions/*', '/workflows', '/workflows/*', '/ui/*'])
    app.use(path, withSecurityHeaders);

  app.get('/', (c) => c.html(page(<ExecutionsPage />)));
  app.get('/history', (c) => c.html(page(<HistoryPage />)));
  app.get('/executions/:id', (c) => {
    const id = c.req.param('id');
    if (!isExecutionId(id)) throw new NotFoundError(`no execution ${JSON.stringify(id.slice(0, 64))}`);
    return c.html(page(<DetailPage execution={id} />));
  });
  app.get('/workflows', (c) => c.html(page(<WorkflowsPage />)));
  app.get('/workflows/:id', (c) => {
    const id = c.req.param('id');
    if (!isExecutionId(id)) throw new NotFoundError(`no workflow run ${JSON.stringify(id.slice(0, 64))}`);
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
  return app;
}

/** A page's HTML with its doctype. */
function page(element: { toString(): string | Promise<string> }): Promise<string> {
  return Promise.resolve(element.toString()).then((html) => `<!doctype html>${html}`);
}
