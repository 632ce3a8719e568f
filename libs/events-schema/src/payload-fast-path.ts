import { TRACKER_MAX_PROPS, type CollectedEvent, type TrackerPayload } from './collected-event.js';

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
 * Mirrors: a plain object with only the schema's keys; k /^[A-Za-z0-9]{8,64}$/;
 * n, u, d non-empty strings of at most 120, 2048, 253 UTF-16 units; r, s strings
 * of at most 2048, 64; e, sd, sc, w integers in [0, 86 400 000], [0, 100],
 * [100, 599], [0, 100 000]; p a plain object of at most 30 keys of 1–64 units whose values are
 * strings of at most 256 units, finite numbers or booleans; null for an optional
 * field means absent. Output keys follow the schema's order (as zod's do), so the
 * published JSON is byte for byte the same.
 */
export function checkTrackerPayloadFast(input: unknown): TrackerPayload | undefined {
  if (!isPlainObject(input)) return undefined;
  for (const key in input) if (!Object.hasOwn(input, key) || !FIELD_SET.has(key)) return undefined;
  return trackerFields(input);
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
  const out = trackerFields(input) as Record<string, unknown> | undefined;
  if (!out) return undefined;
  out.ts = ts;
  out.ip = ip;
  out.ua = ua;
  return out as CollectedEvent;
}

/** The tracker's fields of a plain object whose keys were checked, in the schema's order. */
function trackerFields(input: Record<string, unknown>): TrackerPayload | undefined {
  const { k, n, u, d, r, p, e, sd, sc, s, w } = input;
  if (typeof k !== 'string' || !TRACKING_KEY.test(k)) return undefined;
  if (!isString(n, 1, 120) || !isString(u, 1, 2048) || !isString(d, 1, 253)) return undefined;
  const out: Record<string, unknown> = { k, n, u, d };
  if (r != null) {
    if (!isString(r, 0, 2048)) return undefined;
    out.r = r;
  }
  if (p != null) {
    const props = checkProps(p);
    if (!props) return undefined;
    out.p = props;
  }
  if (e != null) {
    if (!isInteger(e, 0, 86_400_000)) return undefined;
    out.e = e;
  }
  if (sd != null) {
    if (!isInteger(sd, 0, 100)) return undefined;
    out.sd = sd;
  }
  if (sc != null) {
    if (!isInteger(sc, 100, 599)) return undefined;
    out.sc = sc;
  }
  if (s != null) {
    if (!isString(s, 0, 64)) return undefined;
    out.s = s;
  }
  if (w != null) {
    if (!isInteger(w, 0, 100_000)) return undefined;
    out.w = w;
  }
  return out as TrackerPayload;
}

const TRACKER_FIELDS = ['k', 'n', 'u', 'd', 'r', 'p', 'e', 'sd', 'sc', 's', 'w'];
const FIELD_SET = new Set(TRACKER_FIELDS);
const COLLECTED_FIELD_SET = new Set([...TRACKER_FIELDS, 'ts', 'ip', 'ua']);
const TRACKING_KEY = /^[A-Za-z0-9]{8,64}$/;
const MAX_PROPS = TRACKER_MAX_PROPS;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isString(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** A copy of the props (zod's record returns a new object), or undefined when zod must judge them. */
function checkProps(value: unknown): Record<string, string | number | boolean> | undefined {
  if (!isPlainObject(value)) return undefined;
  const props: Record<string, string | number | boolean> = {};
  let count = 0;
  for (const key in value) {
    // __proto__ would set the copy's prototype instead of a key: zod's business
    if (!Object.hasOwn(value, key) || key.length < 1 || key.length > 64 || key === '__proto__') return undefined;
    if (++count > MAX_PROPS) return undefined;
    const field = value[key];
    if (typeof field === 'string' ? field.length > 256 : typeof field === 'number' ? !Number.isFinite(field) : typeof field !== 'boolean') return undefined;
    props[key] = field as string | number | boolean;
  }
  return props;
}
