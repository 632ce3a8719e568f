export type Payload = Record<string, unknown>;

/** Called on every payload before it is sent (sessions adds `s`, status-codes adds `sc`). */
export const payloadHooks: Array<(payload: Payload) => void> = [];

/** Called before an SPA navigation's pageview, while `current.u` is still the old page (engagement flushes). */
export const navigationHooks: Array<() => void> = [];
