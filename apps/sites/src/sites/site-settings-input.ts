import { ApiError } from '@sightline/errors';
import { canonicalTimezone } from '@sightline/runtime';
import { LIMITS } from '../limits.js';

/**
 * An IANA time zone name, canonicalized by Intl (`europe/berlin` → `Europe/Berlin`,
 * links to their target: `US/Pacific` → `America/Los_Angeles`), one of the zones a
 * site may have (libs/runtime `siteTimezones`). UTC offsets such as `+01:00` are not
 * IANA names and are refused, as are names the events store cannot load (SystemV/EST5).
 */
export function parseTimezone(raw: string): string {
  const text = raw.trim();
  const refuse = () =>
    new ApiError(
      'invalid_request',
      `timezone must be an IANA time zone name such as Europe/Berlin or UTC; "${text.slice(0, LIMITS.timezoneLength)}" is not one.`,
    );
  if (text === '' || text.length > LIMITS.timezoneLength || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(text)) throw refuse();
  const canonical = canonicalTimezone(text);
  if (canonical === undefined) throw refuse();
  return canonical;
}

/** 0 (Sunday) through 6 (Saturday). */
export function parseWeekStart(raw: number): number {
  if (!Number.isInteger(raw) || raw < 0 || raw > 6) throw new ApiError('invalid_request', 'week_start must be an integer from 0 (Sunday) to 6 (Saturday).');
  return raw;
}
