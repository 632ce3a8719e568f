/**
 * scroll (requires engagement): `sd`, the page's maximum scroll depth 0–100
 * (bottom of the viewport / document height), sent with every engagement event;
 * reset on SPA navigation.
 */
import { doc } from '../core/globals.js';
import { navigationHooks, payloadHooks } from '../core/hooks.js';

let max = 0;

function measure(): void {
  max = Math.max(max, Math.min(100, Math.round(((scrollY + innerHeight) * 100) / doc.documentElement.scrollHeight)));
}

// scroll listeners on window are passive by default
addEventListener('scroll', measure);
payloadHooks.push((payload) => {
  if (payload.n == 'engagement') (measure(), (payload.sd = max));
});
// runs after engagement's flush (catalogue order): the old page's depth goes out first
navigationHooks.push(() => (max = 0));
