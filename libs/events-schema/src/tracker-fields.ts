import { z } from 'zod';

/**
 * The fields the tracker sends (`POST /api/event`), one entry each: short keys keep
 * the tracker small, and every field is bounded (the one unauthenticated write open
 * to the whole internet). From this table `npm run generate:attributes` writes both
 * the zod shape (collected-event.ts builds `TrackerPayload` and `CollectedEvent` on
 * it) and the hand-unrolled fast path that checks the common well-formed event
 * (payload-fast-path.ts), so a new field is one entry here.
 *
 * Kinds: `key` the tracking key; `text` a string of min–max UTF-16 units; `integer`
 * a safe integer in [min, max]; `props` the custom properties. A field not `required`
 * may be absent or null (both mean absent).
 */
export type TrackerFieldSpec =
  | { readonly kind: 'key'; readonly description: string }
  | { readonly kind: 'text'; readonly min: number; readonly max: number; readonly required: boolean; readonly description: string }
  | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly description: string }
  | { readonly kind: 'props'; readonly description: string };

/** Custom properties one event may carry. */
export const TRACKER_MAX_PROPS = 30;

/** In the order the parsed event lists them (zod's output order, kept by the fast path). */
export const TRACKER_FIELDS = {
  k: { kind: 'key', description: 'The site’s tracking key (the last path segment of its script_url, without .js).' },
  n: { kind: 'text', min: 1, max: 120, required: true, description: 'Event name: pageview, engagement, or a custom name.' },
  u: { kind: 'text', min: 1, max: 2048, required: true, description: 'Page URL.' },
  d: { kind: 'text', min: 1, max: 253, required: true, description: 'Site domain (location.hostname).' },
  r: { kind: 'text', min: 0, max: 2048, required: false, description: 'Referrer.' },
  p: {
    kind: 'props',
    description: `Custom properties: at most ${TRACKER_MAX_PROPS}, keys of 1 to 64 characters, values strings of up to 256 characters, numbers or booleans.`,
  },
  e: { kind: 'integer', min: 0, max: 86_400_000, description: 'Engaged milliseconds since the last engagement event (engagement only).' },
  sd: { kind: 'integer', min: 0, max: 100, description: 'Maximum scroll depth, percent (engagement only).' },
  sc: { kind: 'integer', min: 100, max: 599, description: 'HTTP status code of the page.' },
  s: { kind: 'text', min: 0, max: 64, required: false, description: 'Per-tab session marker.' },
  w: { kind: 'integer', min: 0, max: 100_000, description: 'Viewport width in CSS pixels (window.innerWidth): the visit’s screen size class.' },
} as const satisfies Record<string, TrackerFieldSpec>;

export const TRACKING_KEY = /^[A-Za-z0-9]{8,64}$/;

const propValue = z.union([z.string().max(256), z.number().finite(), z.boolean()]);

/** The `props` kind as zod checks it (the generated shape adds nullish and the description). */
export const trackerProps = z
  .record(z.string().min(1).max(64), propValue)
  .refine((props) => Object.keys(props).length <= TRACKER_MAX_PROPS, `at most ${TRACKER_MAX_PROPS} props`)
  // the refine is invisible to the generated JSON schema: say it there too
  .meta({ maxProperties: TRACKER_MAX_PROPS });
