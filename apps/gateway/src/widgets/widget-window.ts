import { ApiError } from '@sightline/errors';
import type { WidgetType } from './widget-types.js';

/** The countries and map widgets' default window. */
export const DEFAULT_WIDGET_WINDOW = '30d';
/** The fixed windows of the live widgets, as their answers name them. */
const FIXED: Partial<Record<WidgetType, string>> = { 'live-users': '5m', globe: '30m' };
const DAYS = /^([1-9]\d?)d$/;
const MAX_DAYS = 90;

/**
 * `window` of GET /widgets/{type}: for countries and map `Nd` (N 1–90) or `month`
 * (POST /query's relative windows, in the site's time zone), default `30d`; the live
 * widgets have one window each (absent, or named as their answer names it). Else 400
 * `invalid_date_range`, before the key is looked up.
 */
export function widgetWindowOf(type: WidgetType, raw: string | undefined): string {
  const fixed = FIXED[type];
  if (fixed !== undefined) {
    if (raw === undefined || raw === fixed) return fixed;
    throw new ApiError('invalid_date_range', `The ${type} widget's window is fixed: ${fixed}.`);
  }
  if (raw === undefined) return DEFAULT_WIDGET_WINDOW;
  const days = DAYS.exec(raw);
  if (raw === 'month' || (days && Number(days[1]) <= MAX_DAYS)) return raw;
  throw new ApiError('invalid_date_range', `window must be Nd (N 1 to ${MAX_DAYS}) or month.`);
}
