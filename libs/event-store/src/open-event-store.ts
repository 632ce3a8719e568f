import { access, constants, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ChdbEventStore } from './chdb-event-store.js';
import { ClickHouseEventStore } from './clickhouse-event-store.js';
import type { EventStore } from './event-store.js';
import { LazyEventStore } from './lazy-event-store.js';

export interface OpenEventStoreOptions {
  /** A ClickHouse server (HTTP URL, may carry user:password). Wins over `dataDir`. */
  clickhouseUrl?: string;
  /** ClickHouse server only: the cluster its tables are spread over (`CLICKHOUSE_CLUSTER`). */
  clickhouseCluster?: string;
  /** Database for unqualified table names, created if missing. Default `sightline`. */
  database?: string;
  /** Single-process mode: chDB keeps its files in `<dataDir>/events`. */
  dataDir?: string;
  /**
   * Embedded chDB only: load the engine on the first statement instead of now
   * (a `LazyEventStore`). An idle process then never pays its ~200 MB.
   */
  embeddedOnFirstUse?: boolean;
  /** Embedded chDB only: the engine's total memory cap (`CHDB_MAX_MEMORY_BYTES`). */
  embeddedMaxMemoryBytes?: number;
}

/** Picks the adapter from configuration: a server URL → ClickHouse, otherwise chDB under `dataDir`. */
export async function openEventStore(options: OpenEventStoreOptions): Promise<EventStore> {
  if (options.clickhouseUrl) {
    return ClickHouseEventStore.open({ url: options.clickhouseUrl, database: options.database, cluster: options.clickhouseCluster });
  }
  if (options.dataDir) {
    const dir = path.join(options.dataDir, 'events');
    const database = options.database ?? 'sightline';
    const open = () => ChdbEventStore.open({ path: dir, database, maxMemoryBytes: options.embeddedMaxMemoryBytes });
    if (!options.embeddedOnFirstUse) return open();
    // a data dir that cannot be written fails start-up now, as an eager open would
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return new LazyEventStore({
      kind: 'chdb',
      database,
      open,
      pingUnopened: () => access(dir, constants.W_OK),
    });
  }
  throw new Error('openEventStore needs clickhouseUrl (a ClickHouse server) or dataDir (embedded chDB)');
}
