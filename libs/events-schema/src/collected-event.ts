import { z } from 'zod';
import { TRACKER_FIELD_SHAPE } from './tracker-fields.generated.js';

export { TRACKER_MAX_PROPS } from './tracker-fields.js';

/**
 * What the tracker sends (`POST /api/event`, text/plain JSON to avoid a CORS
 * preflight): the fields of tracker-fields.ts. The gateway validates with it, the bus
 * payload is inferred from it, ingest parses with it.
 */
const trackerFields = z.object(TRACKER_FIELD_SHAPE).strict();

type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> };

/**
 * Other trackers send `null` for an optional field they have no value for (`"r":
 * null`); it means the same as leaving the field out, so it is accepted and
 * dropped: the parsed event never holds a null.
 */
function dropNulls<T extends object>(value: T): WithoutNulls<T> {
  const clean: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== null) clean[key] = field;
  return clean as WithoutNulls<T>;
}

export const TrackerPayload = trackerFields.transform(dropNulls).meta({ id: 'TrackerEvent' });

export type TrackerPayload = z.output<typeof TrackerPayload>;

/**
 * The message on `events.collected`: the tracker's fields plus what the gateway
 * adds — server receive time (`ts`, ISO 8601), client IP and User-Agent. IP and UA
 * only feed the visitor hash and enrichment in ingest; they are never stored.
 */
export const CollectedEvent = trackerFields
  .extend({
    ts: z.string().min(1).max(40),
    ip: z.string().max(64),
    ua: z.string().max(1024),
  })
  .transform(dropNulls);

export type CollectedEvent = z.output<typeof CollectedEvent>;
