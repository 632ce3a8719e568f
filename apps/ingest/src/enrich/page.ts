/**
 * The page of an event from the tracker's `u` (origin + path, plus the kept query
 * and, in hash-routing mode, `location.hash`; see libs/tracker/src/core/page.ts).
 *
 * - only http: and https: pages count: any other scheme (file:, ftp:, ws:,
 *   chrome-extension:, …) is no web page, and the event is dropped as `invalid_url`.
 * - hostname: lowercase ASCII, without a leading `www.` (as Plausible shows it), so
 *   www.example.com and example.com are one site; ≤ 253 characters.
 * - pathname: percent-decoded for display (`decodeURI`: reserved characters such as
 *   %2F stay encoded), no query string; ≤ 2048 characters.
 * - hash routing: a non-empty fragment is a route (`#/about`), appended to the path
 *   without its own query: `/#/about`.
 */
import { truncate } from './bounded-text.js';
import { normalizeHost, stripWww } from './hostnames.js';

export const MAX_PATHNAME = 2048;

export interface PageInfo {
  hostname: string;
  pathname: string;
}

export function parsePage(url: string, opts: { hashRouting: boolean }): PageInfo | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const hostname = stripWww(normalizeHost(parsed.hostname));
  if (!hostname) return null;
  let pathname = decodePath(parsed.pathname || '/');
  if (opts.hashRouting && parsed.hash.length > 1) {
    const route = decodePath(parsed.hash);
    const query = route.indexOf('?');
    pathname += query < 0 ? route : route.slice(0, query);
  }
  return { hostname, pathname: truncate(pathname, MAX_PATHNAME) };
}

function decodePath(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path; // malformed escape: keep the path as sent
  }
}
