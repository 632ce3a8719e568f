import type { FastifyRequest } from 'fastify';
import { cityPoint } from '@sightline/geo';
import type { QueryAnswer, QueryRequest } from '@sightline/query-contract';
import type { ReportQueries, ReportSite } from '../reports/report-queries.js';
import type { WidgetType } from './widget-types.js';

export interface CountryEntry {
  /** ISO 3166-1 alpha-2 */
  code: string;
  /** English name (the query's label) */
  name: string;
  visitors: number;
  /** percent of the answer's `visitors`, one decimal */
  share: number;
}

export interface LiveUsersAnswer {
  type: 'live-users';
  visitors: number;
  window: '5m';
  sparkline: Array<{ t: string; visitors: number }>;
  generated_at: string;
}

export interface CountriesAnswer {
  type: 'countries' | 'map';
  window: string;
  visitors: number;
  countries: CountryEntry[];
  generated_at: string;
}

export interface GlobeAnswer {
  type: 'globe';
  window: '30m';
  visitors: number;
  locations: Array<{ lat: number; lon: number; visitors: number }>;
  countries: CountryEntry[];
  generated_at: string;
}

export type WidgetAnswer = LiveUsersAnswer | CountriesAnswer | GlobeAnswer;

/** The live widget's count: unique visitors since the start of the minute this many minutes ago. */
export const LIVE_MINUTES = 5;
/** The sparkline's points: one per minute, the current one last. */
export const SPARKLINE_POINTS = 30;
/** The countries widget's list; map lists every country. */
export const COUNTRIES_LIMIT = 50;
export const GLOBE_COUNTRIES = 10;
/** A breakdown's largest page: more than there are countries, and the globe's cities past it are left out */
const ALL_ROWS = 1000;

const COUNTRY_CODE = /^[A-Z]{2}$/;
const CITY_ID = /^[1-9]\d{0,9}$/;

/** `2026-11-27T20:01:00Z`: every time a widget answers, to the minute. */
export function minuteIso(ms: number): string {
  return `${new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 16)}:00Z`;
}

const visitorsOf = (row: QueryAnswer['results'][number] | undefined): number => Number(row?.metrics.visitors ?? 0) || 0;

const visitorsQuery = (dateRange: string, dimensions: string[] = [], limit?: number): QueryRequest => ({
  metrics: ['visitors'],
  dateRange,
  dimensions,
  filters: [],
  ...(limit !== undefined ? { limit } : {}),
});

/** Countries by visitors, then code (the unknown country is left out: it is in the total only). */
function countriesOf(answer: QueryAnswer, total: number, limit: number): CountryEntry[] {
  return answer.results
    .flatMap((row) => {
      const code = row.dimensions?.['visit:country'] ?? '';
      if (!COUNTRY_CODE.test(code)) return [];
      const visitors = visitorsOf(row);
      return visitors > 0
        ? [{ code, name: row.labels?.['visit:country'] ?? code, visitors, share: total > 0 ? Math.round((visitors / total) * 1000) / 10 : 0 }]
        : [];
    })
    .sort((a, b) => b.visitors - a.visitors || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
    .slice(0, limit);
}

/**
 * Each widget's answer from POST /query's shapes, through ReportQueries (the query
 * service and the answer cache): aggregates only — counts per minute, country and
 * city point — never a path, referrer or visitor id. Two Query calls per answer at most.
 */
export class WidgetAnswers {
  constructor(private readonly reports: ReportQueries) {}

  async answer(request: FastifyRequest, site: ReportSite, type: WidgetType, window: string, nowMs: number): Promise<WidgetAnswer> {
    const generatedAt = minuteIso(nowMs);
    switch (type) {
      case 'live-users':
        return this.liveUsers(request, site, generatedAt);
      case 'globe':
        return this.globe(request, site, generatedAt);
      default:
        return this.countries(request, site, type, window, generatedAt);
    }
  }

  private async liveUsers(request: FastifyRequest, site: ReportSite, generatedAt: string): Promise<LiveUsersAnswer> {
    const [series, recent] = await Promise.all([
      this.reports.run(request, site, visitorsQuery('realtime', ['time:minute'])),
      this.reports.run(request, { ...site, realtimeMinutes: LIVE_MINUTES }, visitorsQuery('realtime')),
    ]);
    // realtime's buckets start at the echoed instant, one a minute, zero-filled, the current minute last
    const startMs = Date.parse(series.query.date_range[0]);
    const points = series.results.map((row, i) => ({ t: minuteIso(startMs + i * 60_000), visitors: visitorsOf(row) }));
    return { type: 'live-users', visitors: visitorsOf(recent.results[0]), window: '5m', sparkline: points.slice(-SPARKLINE_POINTS), generated_at: generatedAt };
  }

  private async countries(request: FastifyRequest, site: ReportSite, type: 'countries' | 'map', window: string, generatedAt: string): Promise<CountriesAnswer> {
    // the same two queries for both types (and any window's), so a page with both costs nothing more
    const [total, byCountry] = await Promise.all([
      this.reports.run(request, site, visitorsQuery(window)),
      this.reports.run(request, site, visitorsQuery(window, ['visit:country'], ALL_ROWS)),
    ]);
    const visitors = visitorsOf(total.results[0]);
    return {
      type,
      window,
      visitors,
      countries: countriesOf(byCountry, visitors, type === 'countries' ? COUNTRIES_LIMIT : ALL_ROWS),
      generated_at: generatedAt,
    };
  }

  private async globe(request: FastifyRequest, site: ReportSite, generatedAt: string): Promise<GlobeAnswer> {
    const [byCountry, byCity] = await Promise.all([
      this.reports.run(request, site, visitorsQuery('realtime', ['visit:country'], ALL_ROWS)),
      this.reports.run(request, site, visitorsQuery('realtime', ['visit:city'], ALL_ROWS)),
    ]);
    // Every visitor is in exactly one row here (the unknown country's too): a live visitor id is
    // derived from the address, which has one country, so the rows add up to the window's unique
    // visitors without a third query.
    const visitors = byCountry.results.reduce((sum, row) => sum + visitorsOf(row), 0);
    const locations = new Map<string, { lat: number; lon: number; visitors: number }>();
    for (const row of byCity.results) {
      const id = row.dimensions?.['visit:city'] ?? '';
      const point = CITY_ID.test(id) ? cityPoint(Number(id)) : undefined;
      const count = visitorsOf(row);
      if (!point || count <= 0) continue;
      // two cities may share a rounded point: one marker
      const at = `${point.lat},${point.lon}`;
      const known = locations.get(at);
      if (known) known.visitors += count;
      else locations.set(at, { lat: point.lat, lon: point.lon, visitors: count });
    }
    const sorted = [...locations.values()].sort((a, b) => b.visitors - a.visitors || a.lat - b.lat || a.lon - b.lon);
    return {
      type: 'globe',
      window: '30m',
      visitors,
      locations: sorted,
      countries: countriesOf(byCountry, visitors, GLOBE_COUNTRIES),
      generated_at: generatedAt,
    };
  }
}
