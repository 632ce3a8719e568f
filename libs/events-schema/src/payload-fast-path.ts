import type { CollectedEvent, TrackerPayload } from './collected-event.js';
import { isPlainObject, isString } from './fast-checks.js';
import { TRACKER_FIELD_NAMES, trackerFieldsFast } from './tracker-fields.generated.js';

/**
 * The common case of `TrackerPayload` and `CollectedEvent` checked by hand: every
 * tracked event is validated twice (the gateway's body, ingest's bus message), and
 * zod's general machinery was a visible share of both profiles (collection; ingest,
 * 4 % of its CPU). This is a fast path, not a second schema: it answers only
 * "certainly valid, and here is exactly what zod would return" or undefined, and
 * undefined sends the value through zod, which decides and words the 400 or the
 * drop. So a value this check does not know how to judge costs time, never
 * correctness. `payload-fast-path.test.ts` holds the two to the same answers.
 *
 * Mirrors: a plain object with only the schema's keys, each field as tracker-fields.ts
 * declares it (the field-by-field check is generated from that table,
 * tracker-fields.generated.ts); p a plain object of at most 30 keys of 1–64 units
 * whose values are strings of at most 256 units, finite numbers or booleans; null
 * for an optional field means absent. Output keys follow the schema's order (as
 * zod's do), so the published JSON is byte for byte the same.
 */
export function checkTrackerPayloadFast(input: unknown): TrackerPayload | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key in input) if (!Object.hasOwn(input, key) || !FIELD_SET.has(key)) return undefined;
  return trackerFieldsFast(input) as TrackerPayload | undefined;
}

/**
 * The same for a message of `events.collected`: the tracker's fields, then `ts`
 * (1–40 units), `ip` (at most 64) and `ua` (at most 1024), all required strings.
 */
export function checkCollectedEventFast(input: unknown): CollectedEvent | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key in input) if (!Object.hasOwn(input, key) || !COLLECTED_FIELD_SET.has(key)) return undefined;
  const { ts, ip, ua } = input;
  if (!isString(ts, 1, 40) || !isString(ip, 0, 64) || !isString(ua, 0, 1024)) return undefined;
  const out = trackerFieldsFast(input);
  if (!out) return undefined;
  out.ts = ts;
  out.ip = ip;
  out.ua = ua;
  return out as CollectedEvent;
}

const FIELD_SET = new Set(TRACKER_FIELD_NAMES);
const COLLECTED_FIELD_SET = new Set([...TRACKER_FIELD_NAMES, 'ts', 'ip', 'ua']);
