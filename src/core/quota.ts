/**
 * What HarmFlow knows of a harness's quota: `ok` (it ran, or its limit reset), `warning` (it still
 * runs, but reported it is close to its limit), `exhausted` (it said it is out, until `resetsAt` when
 * it said when). Plain data, shared by the store, the engine and the surfaces.
 */
export const QUOTA_STATES = ['ok', 'warning', 'exhausted'] as const;
export type QuotaState = (typeof QUOTA_STATES)[number];
