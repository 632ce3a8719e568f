import { loc } from './globals.js';
import { ENDPOINT, KEY, off } from './config.js';
import { payloadHooks, type Payload } from './hooks.js';
import { current } from './page.js';

/**
 * Sends one event as text/plain JSON (a CORS-safelisted type: no preflight). A
 * string body is sent as `text/plain;charset=UTF-8` by default, so no header is
 * set (it would cost ~30 bytes of every page's script).
 * fetch with keepalive survives the page being unloaded; without fetch,
 * navigator.sendBeacon. A rejected fetch is not retried (it may have arrived).
 */
export function send(name: string, extra?: Payload | false): void {
  if (off) return;
  // w: the viewport width, the visit's screen size class in ingest
  const payload: Payload = { k: KEY, n: name, u: current.u, d: loc.hostname, w: innerWidth, ...extra };
  for (const hook of payloadHooks) hook(payload);
  const body = JSON.stringify(payload);
  try {
    fetch(ENDPOINT, { method: 'POST', keepalive: true, body }).catch(() => {});
  } catch {
    navigator.sendBeacon(ENDPOINT, body);
  }
}
