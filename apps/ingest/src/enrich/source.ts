/**
 * Where a visit came from (SEMANTICS "Referrer → source"):
 * utm_source, else the `ref` / `source` query parameter, else the referrer's host
 * mapped to a known name (Snowplow referer data: google.co.uk → Google), else the
 * bare referrer host without `www.`. A referrer on the page's own host or on a
 * local host is no source. Everything comes from strings the visitor controls, so
 * every value is bounded.
 */
import { truncate } from './bounded-text.js';
import { isLocalHost, normalizeHost, stripWww } from './hostnames.js';
import { lookupReferer } from './referer-names.js';

export const MAX_UTM = 256;
export const MAX_REFERRER = 2048;

/**
 * Click-id parameters of ad platforms and their redirects. Only the parameter's NAME
 * is kept (it says "this came from an ad click"); its value identifies the click
 * and is never stored.
 */
export const CLICK_ID_PARAMS = [
  'gclid',
  'gbraid',
  'wbraid',
  'dclid',
  'msclkid',
  'fbclid',
  'ttclid',
  'twclid',
  'li_fat_id',
  'epik',
  'rdt_cid',
  'ScCid',
  'yclid',
  'irclickid',
] as const;

export interface SourceInput {
  referrer?: string;
  pageUrl: string;
  /** The page's hostname as stored (parsePage: lowercase, no `www.`). */
  pageHost: string;
}

export interface SourceInfo {
  source: string;
  /** Referrer host + path, no query string; '' when the referrer is no source. */
  referrer: string;
  /** Host of `referrer` (lowercase, `www.` kept): what channel classification matches. */
  referrer_host: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  utm_content: string;
  utm_term: string;
  /** Name of the first click-id parameter present (e.g. 'gclid'), never its value. */
  click_id: string;
}

export function resolveSource(input: SourceInput): SourceInfo {
  const query = pageQuery(input.pageUrl);
  // no named closure here: under tsx (keepNames) each would cost a defineProperty per event
  const external = externalReferrer(input.referrer, input.pageHost);
  const fromReferrer = external ? (lookupReferer(external.host, external.path)?.name ?? stripWww(external.host)) : '';
  return {
    source: queryParam(query, 'utm_source') || queryParam(query, 'ref') || queryParam(query, 'source') || fromReferrer,
    referrer: external ? truncate(external.host + external.path, MAX_REFERRER) : '',
    referrer_host: external?.host ?? '',
    utm_source: queryParam(query, 'utm_source'),
    utm_medium: queryParam(query, 'utm_medium'),
    utm_campaign: queryParam(query, 'utm_campaign'),
    utm_content: queryParam(query, 'utm_content'),
    utm_term: queryParam(query, 'utm_term'),
    click_id: CLICK_ID_PARAMS.find((name) => query.has(name)) ?? '',
  };
}

function queryParam(query: URLSearchParams, name: string): string {
  return truncate((query.get(name) ?? '').trim(), MAX_UTM);
}

function pageQuery(pageUrl: string): URLSearchParams {
  try {
    return new URL(pageUrl).searchParams;
  } catch {
    return new URLSearchParams();
  }
}

/** The referrer's host and path when it is a source; undefined for none, same-host, local or unparseable. */
function externalReferrer(referrer: string | undefined, pageHost: string): { host: string; path: string } | undefined {
  if (!referrer) return undefined;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return undefined;
  }
  const host = normalizeHost(url.hostname);
  if (!host || isLocalHost(host)) return undefined;
  if (stripWww(host) === stripWww(normalizeHost(pageHost))) return undefined;
  const path = url.pathname === '/' ? '' : decodeSafely(url.pathname);
  return { host, path };
}

function decodeSafely(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}
