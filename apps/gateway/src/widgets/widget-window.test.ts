import { describe, expect, it } from 'vitest';
import { isApiError } from '@sightline/errors';
import { widgetWindowOf } from './widget-window.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return isApiError(error) ? error.code : 'not an ApiError';
  }
};

describe('widgetWindowOf', () => {
  it('countries and map: Nd (1–90) or month, default 30d', () => {
    expect(widgetWindowOf('countries', undefined)).toBe('30d');
    for (const w of ['1d', '7d', '90d', 'month']) expect(widgetWindowOf('map', w)).toBe(w);
    for (const w of ['0d', '91d', '07d', '12mo', 'realtime', '', '7D', '2024-01-01,2024-01-31', '5m'])
      expect([w, codeOf(() => widgetWindowOf('countries', w))]).toEqual([w, 'invalid_date_range']);
  });

  it('live-users and globe: their one window, named or absent', () => {
    expect(widgetWindowOf('live-users', undefined)).toBe('5m');
    expect(widgetWindowOf('live-users', '5m')).toBe('5m');
    expect(widgetWindowOf('globe', '30m')).toBe('30m');
    expect(codeOf(() => widgetWindowOf('globe', '30d'))).toBe('invalid_date_range');
    expect(codeOf(() => widgetWindowOf('live-users', '30m'))).toBe('invalid_date_range');
  });
});
