import { describe, expect, it } from 'vitest';
import { isApiError } from '@sightline/errors';
import { reportSiteOf } from '../query-service.js';
import { resolveWindow } from './resolve-dates.js';

const NOW = Date.parse('2026-11-27T20:31:42.500Z');

describe('realtime window length', () => {
  it('spans 30 whole minutes before the current one by default, fewer when the gateway asks (the live widget’s 5)', () => {
    expect(resolveWindow('realtime', 'UTC', NOW)).toMatchObject({ kind: 'realtime', startMs: Date.parse('2026-11-27T20:01:00Z'), endMs: NOW + 1 });
    expect(resolveWindow('realtime', 'UTC', NOW, 5)).toMatchObject({ kind: 'realtime', startMs: Date.parse('2026-11-27T20:26:00Z'), endMs: NOW + 1 });
    // local dates of a zone half an hour off UTC follow the same instants
    expect(resolveWindow('realtime', 'Asia/Kolkata', NOW, 5)).toMatchObject({ startDate: '2026-11-28', endDate: '2026-11-28' });
  });

  it('takes the length from the report site: absent or 0 is the API’s 30, more than 30 is refused', () => {
    const base = { siteId: 1, timezone: 'UTC', weekStart: 1, goals: [], now: new Date(NOW).toISOString() };
    expect(reportSiteOf(base).realtimeMinutes).toBeUndefined();
    expect(reportSiteOf({ ...base, realtimeMinutes: 0 }).realtimeMinutes).toBeUndefined();
    expect(reportSiteOf({ ...base, realtimeMinutes: 5 }).realtimeMinutes).toBe(5);
    let code: string | undefined;
    try {
      reportSiteOf({ ...base, realtimeMinutes: 31 });
    } catch (error) {
      code = isApiError(error) ? error.code : undefined;
    }
    expect(code).toBe('invalid_request');
  });
});
