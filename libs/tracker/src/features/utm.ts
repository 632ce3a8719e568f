/** utm: `u` keeps the `utm_*`, `ref` and `source` query parameters, in their order (nothing else of the query). */
import { keepQuery } from '../core/page.js';

keepQuery((search) => {
  const kept = search.match(/[?&](utm_\w+|ref|source)=[^&]*/g);
  // each match starts with its separator: drop the first, the rest join as they are
  return kept ? '?' + kept.join('').slice(1) : '';
});
