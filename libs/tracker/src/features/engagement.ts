/**
 * engagement: engaged time (ms) on the page, counted while the page is visible AND
 * focused. Sent as an `engagement` event with `e` = engaged ms since the last one,
 * on visibilitychange → hidden, blur, pagehide, and before an SPA navigation's
 * pageview (with the old page's `u`). Nothing is sent while `e` would be 0, so the
 * same handler serves every one of those events (focus and →visible only restart
 * the clock: the time before them was already flushed).
 */
import { doc } from '../core/globals.js';
import { navigationHooks } from '../core/hooks.js';
import { send } from '../core/send.js';

let engaged = 0;
/** when the current engaged stretch began, or -1 */
let since = -1;

function flush(): void {
  const now = performance.now();
  if (since >= 0) engaged += now - since;
  since = !doc.hidden && doc.hasFocus() ? now : -1;
  const e = engaged | 0;
  if (!e) return;
  engaged -= e;
  send('engagement', { e });
}

flush();
for (const type of ['focus', 'blur', 'pagehide']) addEventListener(type, flush);
doc.addEventListener('visibilitychange', flush);
navigationHooks.push(flush);
