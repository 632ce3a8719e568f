/** hash-routing: `#/path` changes are navigations, and `u` keeps the hash. */
import { keepHash } from '../core/page.js';
import { pageview } from './pageviews.js';

keepHash();
addEventListener('hashchange', () => pageview());
