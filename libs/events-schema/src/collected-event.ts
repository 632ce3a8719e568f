import { z } from 'zod';

/**
 * What the tracker sends (`POST /api/event`, text/plain JSON to avoid a CORS
 * preflight). Short keys keep the tracker small. Every field is bounded: this is
 * the one unauthenticated write open to the whole internet. The gateway validates
 * with it, the bus payload is inferred from it, ingest parses with it.
 */
const propValue = z.union([z.string().max(256), z.number().finite(), z.boolean()]);

export const TrackerPayload = z
  .object({
    k: z.string().regex(/^[A-Za-z0-9]{8,64}$/).describe('The site’s tracking key (the last path segment of its script_url, without .js).'),
    n: z.string().min(1).max(120).describe('Event name: pageview, engagement, or a custom name.'),
    u: z.string().min(1).max(2048).describe('Page URL.'),
    d: z.string().min(1).max(253).describe('Site domain (location.hostname).'),
    r: z.string().max(2048).optional().describe('Referrer.'),
    p: z.record(z.string().min(1).max(64), propValue).refine((props) => Object.keys(props).length <= 30, 'at most 30 props').optional().describe('Custom properties.'),
    e: z.number().int().min(0).max(86_400_000).optional().describe('Engaged milliseconds since the last engagement event (engagement only).'),
    sd: z.number().int().min(0).max(100).optional().describe('Maximum scroll depth, percent (engagement only).'),
    sc: z.number().int().min(100).max(599).optional().describe('HTTP status code of the page.'),
    s: z.string().max(64).optional().describe('Per-tab session marker.'),
  })
  .strict()
  .meta({ id: 'TrackerEvent' });

export type TrackerPayload = z.infer<typeof TrackerPayload>;

/**
 * The message on `events.collected`: the tracker's fields plus what the gateway
 * adds — server receive time (`ts`, ISO 8601), client IP and User-Agent. IP and UA
 * only feed the visitor hash and enrichment in ingest; they are never stored.
 */
export const CollectedEvent = TrackerPayload.extend({
  ts: z.string().min(1).max(40),
  ip: z.string().max(64),
  ua: z.string().max(1024),
});

export type CollectedEvent = z.infer<typeof CollectedEvent>;
