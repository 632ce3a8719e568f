/** status-codes: `sc`, the HTTP status of the page load (Navigation Timing `responseStatus`), on the load's pageview. */
import { payloadHooks } from '../core/hooks.js';

let pending = true;
payloadHooks.push((payload) => {
  if (!pending || payload.n != 'pageview') return;
  pending = false;
  const entry = performance.getEntriesByType?.('navigation')[0] as (PerformanceEntry & { responseStatus?: number }) | undefined;
  if (entry && entry.responseStatus) payload.sc = entry.responseStatus;
});
