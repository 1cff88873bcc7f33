/**
 * The port `harmflow serve` listens on unless told otherwise, and so the one every client reaches by
 * default (client.ts's DEFAULT_URL). Its own module so the clients — the terminal UI's bundle among
 * them — do not load `serve` and what it imports to know it.
 */
export const DEFAULT_PORT = 7878;
