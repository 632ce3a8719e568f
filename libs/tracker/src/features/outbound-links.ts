/** outbound-links: a click on an http(s) link to another host → `Outbound Link: Click` with `p.url`. */
import { loc } from '../core/globals.js';
import { send } from '../core/send.js';
import { linkClicks } from './link-clicks.js';

linkClicks((link) => {
  if (link.host != loc.host && /^http/.test(link.protocol)) send('Outbound Link: Click', { p: { url: link.href } });
});
