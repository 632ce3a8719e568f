import path from 'node:path';
import { ChdbEventStore } from './chdb-event-store.js';
import { ClickHouseEventStore } from './clickhouse-event-store.js';
import type { EventStore } from './event-store.js';

export interface OpenEventStoreOptions {
  /** A ClickHouse server (HTTP URL, may carry user:password). Wins over `dataDir`. */
  clickhouseUrl?: string;
  /** Database for unqualified table names, created if missing. Default `sightline`. */
  database?: string;
  /** Single-process mode: chDB keeps its files in `<dataDir>/events`. */
  dataDir?: string;
}

/** Picks the adapter from configuration: a server URL → ClickHouse, otherwise chDB under `dataDir`. */
export async function openEventStore(options: OpenEventStoreOptions): Promise<EventStore> {
  if (options.clickhouseUrl) {
    return ClickHouseEventStore.open({ url: options.clickhouseUrl, database: options.database });
  }
  if (options.dataDir) {
    return ChdbEventStore.open({ path: path.join(options.dataDir, 'events'), database: options.database ?? 'sightline' });
  }
  throw new Error('openEventStore needs clickhouseUrl (a ClickHouse server) or dataDir (embedded chDB)');
}
