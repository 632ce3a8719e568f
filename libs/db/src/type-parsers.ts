/**
 * How both adapters turn PostgreSQL text values into JS, so a row looks the same
 * whether it came from `PgDb` or `PgliteDb`. Everything not listed keeps the
 * driver default (int2/int4/float → number, json/jsonb → parsed, timestamptz → Date,
 * bool → boolean, text/uuid → string).
 */
export const TYPE_OID = { int8: 20, date: 1082, interval: 1186, numeric: 1700 } as const;

/**
 * int8 (also what `count(*)` and `sum(int)` return) → number while it is exactly
 * representable, bigint beyond ±2^53−1: never a silent precision loss, and no
 * `Number(row.count)` at every call site. This is PGlite's own rule; pg gets it here.
 */
export function parseInt8(text: string): number | bigint {
  const value = BigInt(text);
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** Returns the Postgres text form unchanged. */
function keepText(text: string): string {
  return text;
}

/**
 * Text-format parsers by type OID, shared by both adapters. PGlite parses array
 * elements with these too; pg needs the array types wired separately (pg-db.ts).
 */
export const TEXT_PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  [TYPE_OID.int8]: parseInt8,
  // numeric is arbitrary precision; a JS number would round it.
  [TYPE_OID.numeric]: keepText,
  // `YYYY-MM-DD`: pg would build a Date at local midnight, PGlite at UTC midnight,
  // so the same day could differ between adapters by the process's time zone.
  [TYPE_OID.date]: keepText,
  // `1 day 02:00:00`: pg would build its own interval object, PGlite a string.
  [TYPE_OID.interval]: keepText,
};
