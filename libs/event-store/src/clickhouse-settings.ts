import { randomUUID } from 'node:crypto';
import type { QueryOptions } from './event-store.js';

/**
 * Settings both adapters pin so the same SQL behaves the same on chDB and on a
 * ClickHouse server, whatever that server's defaults are:
 *
 * - 64-bit integers as JSON numbers (a server quotes them by default, chDB
 *   does not) — the EventStore contract promises numbers.
 * - best-effort DateTime parsing on input, so ISO-8601 strings (what
 *   JSON.stringify makes of a Date) insert cleanly.
 * - UTC as the session time zone, so a DateTime without an explicit zone reads
 *   and prints the same whatever the server's `timezone` is.
 */
export const SHARED_CLICKHOUSE_SETTINGS = {
  output_format_json_quote_64bit_integers: 0,
  date_time_input_format: 'best_effort',
  session_timezone: 'UTC',
} as const;

/** Per-insert: the contract says unknown JSON keys are an error (recent servers default to skipping them). */
export const INSERT_SETTINGS = {
  input_format_skip_unknown_fields: 0,
} as const;

/**
 * Every insert is named (`insert_deduplication_token`). Stored again under the same name
 * (ingest's retry of a batch whose answer was lost), it is skipped by the table (a
 * deduplication window: migration 0011) and by the tables its materialized views feed,
 * which otherwise still receive the skipped block. An insert without a name gets a fresh
 * one: a window would otherwise skip rows deleted and written again with the same content
 * (an import restarted after a crash).
 */
export function dedupSettings(token: string = randomUUID()) {
  return { ...INSERT_SETTINGS, insert_deduplication_token: token, deduplicate_blocks_in_dependent_materialized_views: 1 } as const;
}

/**
 * A read's QueryOptions as ClickHouse settings, or undefined when it sets none. The
 * value must be a whole number of bytes: it may end up in a statement's SETTINGS clause.
 */
export function querySettings(options: QueryOptions | undefined): { max_memory_usage: string } | undefined {
  const bytes = options?.maxMemoryBytes;
  if (bytes === undefined || bytes === 0) return undefined;
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`maxMemoryBytes must be a whole number of bytes, got ${bytes}`);
  return { max_memory_usage: String(bytes) };
}

/** The same settings as `clickhouse local` command-line arguments, for a chDB connection. */
export function settingsAsConnectionArgs(settings: Record<string, string | number>): string[] {
  return Object.entries(settings).map(([name, value]) => `--${name}=${value}`);
}
