import { z } from 'zod';

/**
 * What the tracker sends (`POST /api/event`, text/plain JSON to avoid a CORS
 * preflight). Short keys keep the tracker small. Every field is bounded: this is
 * the one unauthenticated write open to the whole internet. The gateway validates
 * with it, the bus payload is inferred from it, ingest parses with it.
 */
const propValue = z.union([z.string().max(256), z.number().finite(), z.boolean()]);
/** Custom properties one event may carry. */
export const TRACKER_MAX_PROPS = 30;

const trackerFields = z
  .object({
    k: z.string().regex(/^[A-Za-z0-9]{8,64}$/).describe('The site’s tracking key (the last path segment of its script_url, without .js).'),
    n: z.string().min(1).max(120).describe('Event name: pageview, engagement, or a custom name.'),
    u: z.string().min(1).max(2048).describe('Page URL.'),
    d: z.string().min(1).max(253).describe('Site domain (location.hostname).'),
    r: z.string().max(2048).nullish().describe('Referrer.'),
    p: z
      .record(z.string().min(1).max(64), propValue)
      .refine((props) => Object.keys(props).length <= TRACKER_MAX_PROPS, `at most ${TRACKER_MAX_PROPS} props`)
      // the refine is invisible to the generated JSON schema: say it there too
      .meta({ maxProperties: TRACKER_MAX_PROPS })
      .nullish()
      .describe(`Custom properties: at most ${TRACKER_MAX_PROPS}, keys of 1 to 64 characters, values strings of up to 256 characters, numbers or booleans.`),
    e: z.number().int().min(0).max(86_400_000).nullish().describe('Engaged milliseconds since the last engagement event (engagement only).'),
    sd: z.number().int().min(0).max(100).nullish().describe('Maximum scroll depth, percent (engagement only).'),
    sc: z.number().int().min(100).max(599).nullish().describe('HTTP status code of the page.'),
    s: z.string().max(64).nullish().describe('Per-tab session marker.'),
    w: z.number().int().min(0).max(100_000).nullish().describe('Viewport width in CSS pixels (window.innerWidth): the visit’s screen size class.'),
  })
  .strict();

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
