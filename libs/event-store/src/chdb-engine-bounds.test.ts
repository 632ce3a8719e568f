import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '@sightline/testkit';
import { ChdbEventStore } from './chdb-event-store.js';
import { EMBEDDED_CACHE_BYTES } from './chdb-engine-bounds.js';
import { EventStoreError } from './event-store-error.js';
import { rejectionOf } from './event-store-contract.js';

const MiB = 1024 * 1024;

// The engine's server settings are process-wide: this file's first store sets them (vitest runs each file in its own process).
describe('embedded engine bounds (issue 29)', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: dir.path, database: 'bounds_test', maxMemoryBytes: 256 * MiB });
  });

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  it('caps the caches ClickHouse sizes for a machine of its own (a 5 GiB mark cache) and the engine total', async () => {
    const rows = await store.query<{ name: string; value: string }>('SELECT name, value FROM system.server_settings WHERE name IN {names:Array(String)}', {
      names: [...Object.keys(EMBEDDED_CACHE_BYTES), 'max_server_memory_usage'],
    });
    const settings = Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
    expect(settings).toEqual({ ...EMBEDDED_CACHE_BYTES, max_server_memory_usage: 256 * MiB });
    expect(settings.mark_cache_size).toBe(64 * MiB);
  });

  it('a statement past the engine total fails with MEMORY_LIMIT_EXCEEDED "(total)"; the engine answers the next one', async () => {
    // ~700 MB of hash table, no per-query limit: only the engine's total stops it
    const refused = await rejectionOf<EventStoreError>(store.query('SELECT uniqExact(number) AS n FROM numbers(40000000)'));
    expect(refused).toMatchObject({ code: 241, type: 'MEMORY_LIMIT_EXCEEDED' });
    expect(refused.message).toMatch(/\(total\)/);
    expect(await store.query('SELECT count() AS n FROM numbers(1000)')).toEqual([{ n: 1000 }]);
  });
});
