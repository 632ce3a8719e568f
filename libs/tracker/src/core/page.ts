/** The page URL as reported in `u`: origin + path, query and hash only when a feature keeps them. */
import { loc } from './globals.js';
let query = (_search: string) => '';
let hash = () => '';

/** utm: decides which part of `loc.search` stays (default: none). */
export function keepQuery(filter: (search: string) => string): void {
  query = filter;
}

/** hash-routing: `u` keeps `loc.hash`. */
export function keepHash(): void {
  hash = () => loc.hash;
}

export function pageUrl(): string {
  return loc.origin + loc.pathname + query(loc.search) + hash();
}

/** The URL of the last pageview sent: every event of the page reports it. */
export const current = { u: '' };
