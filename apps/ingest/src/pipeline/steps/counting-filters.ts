import type { DropReason } from '../drop-reasons.js';
import { compileIpBlocklist, type IpBlocklist } from '../ip-blocklist.js';
import type { TrackedSite } from '../ports.js';

/** A hostname pattern matches exactly, or `*.x` matches any proper subdomain of x (as settings stores them). */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** Hostname filters on the page host (from `u`): empty allowed list = no restriction; blocked wins. */
export function hostnameVerdict(site: TrackedSite, host: string): DropReason | null {
  const h = host.toLowerCase();
  if (site.hostnames.blocked.some((p) => hostMatches(p, h))) return 'hostname_blocked';
  if (site.hostnames.allowed.length > 0 && !site.hostnames.allowed.some((p) => hostMatches(p, h))) return 'hostname_not_allowed';
  return null;
}

/** Country filters, after geo: an unknown country is not on an allowed list. */
export function countryVerdict(site: TrackedSite, country: string): DropReason | null {
  if (country !== '' && site.countries.blocked.includes(country)) return 'country_blocked';
  if (site.countries.allowed.length > 0 && !site.countries.allowed.includes(country)) return 'country_not_allowed';
  return null;
}

/** Compiled blocklists are cached per tracked site object (the resolver hands out the same object until it changes). */
const blocklists = new WeakMap<TrackedSite, IpBlocklist>();

export function ipVerdict(site: TrackedSite, ip: string): DropReason | null {
  let list = blocklists.get(site);
  if (!list) {
    list = compileIpBlocklist(site.blocked_ips);
    blocklists.set(site, list);
  }
  return list.has(ip) ? 'ip_blocked' : null;
}
