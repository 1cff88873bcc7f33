/**
 * Signing a page in. The API token is asked once per browser, not per tab: the page exchanges it
 * (`POST /api/session`, with the token as bearer) for the service's session cookie — HttpOnly,
 * SameSite=Strict, Path=/api (src/server/session-cookie.ts) — and forgets it; from then on the browser
 * sends the cookie with every API request of this origin's pages, so a page opened in a new tab
 * needs no token. No script holds the token after the exchange, nor can read the cookie.
 *
 * `connect()` resolves with an API client once the service accepts this browser: at once when its
 * cookie is good, else after the token dialog got a token the service took. A later 401 (the
 * service restarted with another token) is the page's to handle: it reloads, and the dialog asks.
 */
import { type Api, ApiError, createApi } from '../api.js';
import { byId } from './el.js';

/** An API client of this page's service, once the service accepts this browser. */
export async function connect(): Promise<Api> {
  const api = createApi({ baseUrl: location.origin });
  if (!(await accepted(api))) await askForToken();
  return api;
}

/** True when the service takes `api`'s requests (the cookie, or a token). */
async function accepted(api: Api): Promise<boolean> {
  try {
    await api.get('/api/admission');
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

/** Shows the token dialog until the service takes what is typed in exchange for its cookie. */
function askForToken(): Promise<void> {
  const dialog = byId<HTMLDialogElement>('token-dialog');
  const form = byId<HTMLFormElement>('token-form');
  const input = byId<HTMLInputElement>('token-input');
  const error = byId('token-error');
  return new Promise((resolve) => {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (token === '') return;
      try {
        await createApi({ baseUrl: location.origin, token }).post('/api/session');
      } catch (refusal) {
        if (!(refusal instanceof ApiError && refusal.status === 401)) throw refusal;
        error.textContent = 'The service refused this token.';
        input.select();
        return;
      }
      input.value = '';
      dialog.close();
      resolve();
    });
    // The token is required: Escape does not dismiss the prompt.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.showModal();
    input.focus();
  });
}
