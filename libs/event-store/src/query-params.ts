import type { EventStoreParams } from './event-store.js';

/**
 * Makes a params object bind identically on both adapters. chDB and
 * @clickhouse/client format a few JS types differently, so we settle them first:
 *
 * - Date → Unix timestamp text (`1793000000`, or `1793000000.123` when it has
 *   milliseconds — bind those to DateTime64(3)). Time-zone agnostic, unlike a
 *   'YYYY-MM-DD hh:mm:ss' string, and what @clickhouse/client sends anyway.
 * - top-level boolean → 1 / 0 (binds to Bool and UInt8 alike).
 *
 * Everything else (string, number, bigint, null, arrays) is passed through; the
 * adapter's own binder formats it as ClickHouse parameter text.
 */
export function normalizeParams(params: EventStoreParams | undefined): EventStoreParams {
  const out: EventStoreParams = {};
  if (!params) return out;
  for (const [name, value] of Object.entries(params)) {
    out[name] = typeof value === 'boolean' ? (value ? 1 : 0) : normalizeNested(value);
  }
  return out;
}

function normalizeNested(value: unknown): unknown {
  if (value instanceof Date) return dateToUnixText(value);
  if (Array.isArray(value)) return value.map(normalizeNested);
  return value;
}

function dateToUnixText(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new Error('Cannot bind an invalid Date');
  const seconds = Math.floor(ms / 1000);
  const fraction = ms - seconds * 1000;
  return fraction === 0 ? String(seconds) : `${seconds}.${String(fraction).padStart(3, '0')}`;
}
