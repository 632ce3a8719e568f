/**
 * What ingest needs to know about a site to accept, filter and time an event,
 * resolved from the tracking key the tracker sends.
 */
export interface TrackedSite {
  site_id: number;
  /** the owner's account */
  account_id: number;
  /** the site's own host (from its name, the origin), punycode */
  domain: string;
  /** IANA name; windows and buckets are in it */
  timezone: string;
  /** 0 = Sunday … 6 = Saturday */
  week_start: number;
  /** false once the owner's plan has lapsed: events are dropped */
  tracking_active: boolean;
  /** hostname patterns (`*.x` = proper subdomains of x); an empty `allowed` means no restriction */
  hostnames: { allowed: string[]; blocked: string[] };
  /** addresses and CIDR ranges, IPv4 and IPv6 */
  blocked_ips: string[];
  /** ISO 3166-1 alpha-2; an empty `allowed` means no restriction */
  countries: { allowed: string[]; blocked: string[] };
}
