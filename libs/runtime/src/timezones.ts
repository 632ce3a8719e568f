/**
 * The IANA time zones a site may have: the canonical names Intl lists, UTC, and
 * the fixed offsets Etc/GMT-14 … Etc/GMT+12. Intl also accepts names outside its
 * list that the events store's tz database no longer has (SystemV/EST5 and the
 * like): a site with one answered every time series with ClickHouse's "Cannot load
 * time zone", a 500. The sites service accepts these names only; the query tests
 * run over every one of them.
 */
const FIXED_OFFSETS = Array.from({ length: 27 }, (_, i) => i - 14)
  .filter((hours) => hours !== 0)
  .map((hours) => `Etc/GMT${hours > 0 ? '+' : '-'}${Math.abs(hours)}`);

let zones: ReadonlySet<string> | undefined;

/** Every time-zone name a site may have, canonical (as `canonicalTimezone` returns them). */
export function siteTimezones(): ReadonlySet<string> {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', ...FIXED_OFFSETS]);
  return zones;
}

/** The canonical name of a site time zone (`europe/berlin` → `Europe/Berlin`, `US/Pacific` → `America/Los_Angeles`), or undefined. */
export function canonicalTimezone(name: string): string | undefined {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return siteTimezones().has(canonical) ? canonical : undefined;
}
