/**
 * The Workbench's answer for a page that is not there — an execution the service does not know, an
 * id that is not one, a path no page has: the layout with a heading saying what was not found, a
 * sentence saying why that may be, and a link back to the list it belongs to (`#back-link`). Its
 * module (`/ui/dom/not-found.js`) only installs the keys: `?` for help, `Esc` to follow the link.
 * The route answers it with status 404; the API's own 404s stay JSON.
 */
import { Layout, type Screen } from './layout.js';

export interface NotFoundProps {
  /** The heading: `No execution 01jf…`. */
  readonly title: string;
  readonly text: string;
  /** The list to go back to, and the screen it is (marked current in the top bar). */
  readonly back: { readonly href: string; readonly label: string; readonly screen: Screen };
}

export function NotFoundPage({ title, text, back }: NotFoundProps) {
  return (
    <Layout title={title} screen={back.screen} module="not-found.js">
      <h1>{title}</h1>
      <p>{text}</p>
      <p>
        <a href={back.href} id="back-link">
          ← {back.label}
        </a>
      </p>
    </Layout>
  );
}
