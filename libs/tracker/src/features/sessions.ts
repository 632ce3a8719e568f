/**
 * sessions: `s`, a random per-tab marker kept in sessionStorage (gone when the tab
 * closes; never in localStorage, no cookie). Storage refused → a marker per page load.
 */
import { payloadHooks } from '../core/hooks.js';

let marker = Math.random().toString(36).slice(2);
try {
  marker = sessionStorage.sl_s || (sessionStorage.sl_s = marker);
} catch {}
payloadHooks.push((payload) => (payload.s = marker));
