/**
 * The module of the page saying something is not there (src/server/ui/not-found-page.tsx): the keys
 * every page has — `?` for help, `Esc` to go back, here by following the page's link back to its list.
 * It asks for no token: the page shows no data.
 */
import { GLOBAL_KEYS } from '../keys/keymap.js';
import { byId } from './el.js';
import { installKeys } from './keyboard.js';

const back = byId<HTMLAnchorElement>('back-link');
installKeys(() => [{ title: 'Everywhere', keymap: GLOBAL_KEYS }], { back: () => location.assign(back.href) });
