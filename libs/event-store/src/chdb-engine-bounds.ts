/**
 * Server settings of the embedded engine (chDB), given when it is loaded. chDB runs
 * inside the Node process, where ClickHouse's server defaults are sized for a machine
 * of its own: a 5 GiB mark cache, a 5 GiB primary index cache, a memory cap of 90 %
 * of RAM. After a day's work (an import, collected events, reports) `npm start` kept
 * 1.1 GB resident while idle (issue 29). These bound what the engine keeps between
 * statements and what it may hold at all; figures: `npm run bench -- footprint`.
 *
 * Process-wide: the first store opened in a process sets them.
 */
import { settingsAsConnectionArgs } from './clickhouse-settings.js';

const MiB = 1024 * 1024;

export const EMBEDDED_CACHE_BYTES = {
  /** marks of the parts read: the events tables' are a few MB per million rows */
  mark_cache_size: 64 * MiB,
  index_mark_cache_size: 16 * MiB,
  primary_index_cache_size: 32 * MiB,
  /** not used unless a query asks for it (use_uncompressed_cache): none held */
  uncompressed_cache_size: 0,
  index_uncompressed_cache_size: 0,
  query_condition_cache_size: 16 * MiB,
  /** machine code of JIT-compiled expressions */
  compiled_expression_cache_size: 16 * MiB,
} as const;

/** `--name=value` arguments for chDB: the caches above and the engine's total memory cap. */
export function embeddedEngineArgs(maxMemoryBytes: number | undefined): string[] {
  const settings: Record<string, number> = { ...EMBEDDED_CACHE_BYTES };
  if (maxMemoryBytes !== undefined && maxMemoryBytes > 0) settings.max_server_memory_usage = maxMemoryBytes;
  return settingsAsConnectionArgs(settings);
}
