import { isWithinZone, toAsciiHostname } from './hostname.js';

export interface Zone {
  /** how people write it, e.g. `.рф` */
  display: string;
  /** the ASCII (punycode) name DNS uses, e.g. `xn--p1ai` */
  ascii: string;
}

/**
 * Zones whose addresses and sites Sightline does not accept (spec: 400
 * `domain_not_allowed`, "punycode forms count as the same zone").
 */
export const REFUSED_ZONES: readonly Zone[] = [
  { display: '.ru', ascii: 'ru' },
  { display: '.su', ascii: 'su' },
  { display: '.by', ascii: 'by' },
  { display: '.рф', ascii: 'xn--p1ai' },
  { display: '.бел', ascii: 'xn--90ais' },
];

/** ".ru, .su, .by, .рф, .бел": the list error messages name. */
export const REFUSED_ZONES_TEXT = REFUSED_ZONES.map((zone) => zone.display).join(', ');

/**
 * Names that can never receive mail: the reserved example domains (RFC 2606) and
 * the special-use top-level names (RFC 6761). Spec: 400 `email_undeliverable`.
 */
export const UNDELIVERABLE_ZONES: readonly string[] = ['example.com', 'example.net', 'example.org', 'example', 'test', 'invalid', 'localhost'];

/**
 * The refused zone `hostname` lies in (its display form, e.g. `.рф`), or null.
 * Accepts any spelling: Unicode or punycode, any case, with or without the root dot.
 * Used for e-mail domains here and for site URLs by the sites service.
 */
export function refusedZoneOf(hostname: string): string | null {
  const ascii = toAsciiHostname(hostname);
  if (ascii === null) return null;
  return REFUSED_ZONES.find((zone) => isWithinZone(ascii, zone.ascii))?.display ?? null;
}

/** The reserved or special-use name `hostname` lies in (e.g. `example.org`, `test`), or null. */
export function undeliverableZoneOf(hostname: string): string | null {
  const ascii = toAsciiHostname(hostname);
  if (ascii === null) return null;
  return UNDELIVERABLE_ZONES.find((zone) => isWithinZone(ascii, zone)) ?? null;
}
