import { z } from 'zod';

const Minute = z.string().describe('UTC, to the minute: `YYYY-MM-DDTHH:MM:00Z`.');

const CountryEntry = z
  .object({
    code: z.string().describe('ISO 3166-1 alpha-2.'),
    name: z.string().describe('English name (a widget may show its own locale’s).'),
    visitors: z.number().int(),
    share: z.number().describe('Percent of the answer’s `visitors`, one decimal.'),
  })
  .meta({ id: 'WidgetCountry' });

const LiveUsers = z
  .object({
    type: z.literal('live-users'),
    visitors: z
      .number()
      .int()
      .describe('Unique visitors since the start of the minute five minutes ago (the sparkline’s last five points and the minute before).'),
    window: z.literal('5m'),
    sparkline: z
      .array(z.object({ t: Minute, visitors: z.number().int().describe('Unique visitors in that minute.') }))
      .describe('30 points, one a minute, oldest first, the current minute last, zero-filled.'),
    generated_at: Minute,
  })
  .meta({ id: 'WidgetLiveUsers' });

const Countries = z
  .object({
    type: z.enum(['countries', 'map']),
    window: z.string().describe('The window asked (`30d` by default).'),
    visitors: z.number().int().describe('Unique visitors in the window, those of unknown country included.'),
    countries: z.array(CountryEntry).describe('By visitors, then code; the unknown country left out. countries: the top 50; map: every country.'),
    generated_at: Minute,
  })
  .meta({ id: 'WidgetCountries' });

const Globe = z
  .object({
    type: z.literal('globe'),
    window: z.literal('30m'),
    visitors: z.number().int().describe('Unique visitors in the last 30 minutes (POST /query’s `realtime`).'),
    locations: z
      .array(z.object({ lat: z.number(), lon: z.number(), visitors: z.number().int() }))
      .describe(
        'One per city with visitors (GeoNames point, two decimals: never finer than a city); visitors without a known city get no marker. Most visitors first.',
      ),
    countries: z.array(CountryEntry).describe('The top 10.'),
    generated_at: Minute,
  })
  .meta({ id: 'WidgetGlobe' });

export const WidgetAnswerObject = z.discriminatedUnion('type', [LiveUsers, Countries, Globe]);

export const WidgetParams = z.object({ type: z.string().max(40).describe('globe, live-users, map or countries; anything else → 400 invalid_request.') });

export const WidgetQuerystring = z.object({
  key: z.string().max(200).optional().describe('The widget key (`wk_…`) of the snippet. Unknown, rotated, or of a deleted site → 404 unknown_site.'),
  window: z
    .string()
    .max(40)
    .optional()
    .describe(
      'countries and map: `Nd` (N 1–90) or `month`, in the site’s time zone; default `30d`. live-users (`5m`) and globe (`30m`) have a fixed window. Else 400 invalid_date_range.',
    ),
});

export const WidgetKeyObject = z
  .object({ site_id: z.number().int(), key: z.string().describe('The new widget key (`wk_…`); the old one names nothing from now on.') })
  .meta({ id: 'WidgetKey' });
