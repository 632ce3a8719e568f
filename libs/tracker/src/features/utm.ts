/**
 * utm: `u` keeps the `utm_*`, `ref` and `source` query parameters, in their order
 * (nothing else of the query), and the NAMES of ad click-id parameters without their
 * value (`?gclid=Cj0…` → `?gclid`): ingest only needs to know an ad click brought the
 * visit (its click_id and channel); the value identifies the click and never leaves
 * the page. The pattern (names ending in clid, clkid, braid, fat_id: gclid, dclid,
 * fbclid, ttclid, twclid, msclkid, gbraid, wbraid, li_fat_id, yclid) is short rather
 * than exact, for the standard preset's 1,000 B brotli budget; a stray name kept
 * without its value is harmless, ingest matches its own CLICK_ID_PARAMS list.
 */
import { keepQuery } from '../core/page.js';

keepQuery((search) => {
  const kept = search.match(/[?&]((utm_\w+|ref|source)=[^&]*|\w*(clk?id|braid|fat_id)\b)/g);
  // each match starts with its separator: drop the first, the rest join as they are
  return kept ? '?' + kept.join('').slice(1) : '';
});
