import { REFUSED_ZONES_TEXT, refusedZoneOf, toAsciiHostname } from '@sightline/address-rules';
import { ApiError } from '@sightline/errors';
import { LIMITS } from '../limits.js';

export interface SiteOrigin {
  /** scheme://host[:port] — the site's name */
  origin: string;
  scheme: 'http' | 'https';
  /** lowercase ASCII (punycode), no root dot */
  host: string;
  /** null when absent or the scheme's default */
  port: number | null;
}

const invalid = (why: string): ApiError =>
  new ApiError('invalid_request', `url ${why}; send an origin such as https://example.com (scheme, host, optional port).`);
const DEFAULT_PORTS = { http: 80, https: 443 } as const;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A site URL as its origin. Accepted: `http://` or `https://`, a domain name, an
 * optional port, and at most one trailing `/` (dropped). Refused (400
 * `invalid_request`): any other scheme, a path, query, fragment or user info, IP
 * addresses and single-label hosts (`localhost`). A host in a refused zone (any
 * spelling: Unicode, punycode, any case) is 400 `domain_not_allowed`.
 * Normalized: host lowercased and converted to punycode, root dot and default port
 * dropped, scheme lowercased.
 */
export function parseSiteUrl(raw: unknown): SiteOrigin {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new ApiError('invalid_request', 'url is required: the origin of the site, such as https://example.com.');
  if (raw.length > LIMITS.urlLength) throw invalid(`is longer than ${LIMITS.urlLength} characters`);
  const text = raw.trim();
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(text);
  if (!schemeMatch) throw invalid('must start with http:// or https://');
  const scheme = schemeMatch[1]!.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw invalid(`has the scheme ${scheme}: only http and https are accepted`);
  let rest = schemeMatch[2]!;
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  if (rest.includes('/') || rest.includes('\\')) throw invalid('has a path');
  if (rest.includes('?')) throw invalid('has a query');
  if (rest.includes('#')) throw invalid('has a fragment');
  if (rest.includes('@')) throw invalid('has user info');
  if (rest.startsWith('[')) throw invalid('names an IP address');
  if (/[\s%]/.test(rest) || rest === '') throw invalid('does not name a valid host');

  const portMatch = /^(.*):([^:]*)$/s.exec(rest);
  const hostText = portMatch ? portMatch[1]! : rest;
  let port: number | null = null;
  if (portMatch) {
    const digits = portMatch[2]!;
    if (!/^[0-9]{1,5}$/.test(digits) || Number(digits) < 1 || Number(digits) > 65535) throw invalid('has an invalid port (1..65535)');
    port = Number(digits);
  }
  if (hostText.includes(':')) throw invalid('does not name a valid host');

  const host = toAsciiHostname(hostText);
  if (host === null) throw invalid('does not name a valid host');
  // before any other host rule: a refused zone is always named as such
  const zone = refusedZoneOf(host);
  if (zone !== null) {
    throw new ApiError('domain_not_allowed', `Sites in the zones ${REFUSED_ZONES_TEXT} are not accepted (${host} is in ${zone}).`);
  }
  const labels = host.split('.');
  if (host.length > 253 || !labels.every((label) => LABEL.test(label))) throw invalid('does not name a valid host');
  if (labels.length < 2) throw invalid('must name a domain (single-label hosts such as localhost are not accepted)');
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) throw invalid('names an IP address; use the domain name of the site');

  if (port === DEFAULT_PORTS[scheme]) port = null;
  return { origin: `${scheme}://${host}${port === null ? '' : `:${port}`}`, scheme, host, port };
}

/** true when `host` lies strictly below one of `zones` (`me.github.io` for `github.io`, not `github.io` itself). */
export function hobbyZoneOf(host: string, zones: readonly string[]): string | null {
  return zones.find((zone) => host.endsWith(`.${zone}`)) ?? null;
}

/** 400 `invalid_request` unless `host` qualifies for the hobby tier. */
export function requireHobbyHost(host: string, zones: readonly string[], context: 'create' | 'update'): void {
  if (hobbyZoneOf(host, zones) !== null) return;
  const list = zones.length > 0 ? zones.join(', ') : '(none configured)';
  const start = context === 'create' ? 'hobby: true needs' : 'This is a hobby site: its url must stay';
  throw new ApiError('invalid_request', `${start} a host below one of the free-tier zones ${list} (e.g. me.${zones[0] ?? 'github.io'}); ${host} is not.`);
}
