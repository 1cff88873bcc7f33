/**
 * The API token, asked once per browser tab and kept in that tab's sessionStorage (never in a URL,
 * a cookie or localStorage): `connect()` resolves with the token and an API client once a token works, prompting
 * with the page's token dialog until one does. A later 401 (the service restarted with another
 * token) calls `forgetToken()` and the page asks again.
 */
import { type Api, ApiError, createApi } from '../api.js';
import { byId } from './el.js';

const KEY = 'harmflow.token';

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

export interface Session {
  readonly token: string;
  readonly api: Api;
}

/** A token the service accepts, and an API client that sends it. */
export async function connect(): Promise<Session> {
  const stored = sessionStorage.getItem(KEY);
  if (stored !== null && (await accepted(stored))) return { token: stored, api: apiWith(stored) };
  forgetToken();
  const token = await askForToken();
  sessionStorage.setItem(KEY, token);
  return { token, api: apiWith(token) };
}

function apiWith(token: string): Api {
  return createApi({ baseUrl: location.origin, token });
}

async function accepted(token: string): Promise<boolean> {
  try {
    await apiWith(token).get('/api/admission');
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}

/** Shows the token dialog until the service accepts what is typed. */
function askForToken(): Promise<string> {
  const dialog = byId<HTMLDialogElement>('token-dialog');
  const form = byId<HTMLFormElement>('token-form');
  const input = byId<HTMLInputElement>('token-input');
  const error = byId('token-error');
  return new Promise((resolve) => {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (token === '') return;
      if (await accepted(token)) {
        dialog.close();
        resolve(token);
      } else {
        error.textContent = 'The service refused this token.';
        input.select();
      }
    });
    // The token is required: Escape does not dismiss the prompt.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
    dialog.showModal();
    input.focus();
  });
}
