/**
 * pageviews (locked): the page load, and SPA navigation through
 * history.pushState / replaceState / popstate. A navigation whose page URL (as
 * reported, see core/page.ts) equals the last pageview's sends nothing.
 * The entry calls `startPageviews()` after importing every other feature, so
 * their hooks are in place before the load's pageview.
 */
import { doc } from '../core/globals.js';
import { navigationHooks } from '../core/hooks.js';
import { current, pageUrl } from '../core/page.js';
import { send } from '../core/send.js';

export function pageview(): void {
  const u = pageUrl();
  if (u == current.u) return;
  // no pageview yet: this is the page load's
  const first = !current.u;
  if (!first) for (const hook of navigationHooks) hook();
  current.u = u;
  // the referrer belongs to the page load only ('' when there is none)
  send('pageview', first && { r: doc.referrer });
}

export function startPageviews(): void {
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History) {
      original.apply(this, arguments as unknown as Parameters<History['pushState']>);
      pageview();
    };
  }
  addEventListener('popstate', pageview);
  pageview();
}
