import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from '@sightline/event-store';
import { expectApiError, makeTempDir } from '@sightline/testkit';
import { BoundedReads } from './bounded-reads.js';

const MiB = 1024 * 1024;

// The engine's total cap is process-wide: this file's store sets it (each test file runs in its own process).
describe('reads past the embedded engine total (real chDB)', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let store: ChdbEventStore;

  beforeAll(async () => {
    dir = await makeTempDir();
    store = await ChdbEventStore.open({ path: dir.path, database: 'bounded_total_test', maxMemoryBytes: 256 * MiB });
  });

  afterAll(async () => {
    await store?.close();
    await dir?.remove();
  });

  it('answer 503 unavailable with Retry-After (not the report’s fault), and the next read is answered', async () => {
    // the report's own limit (1 GiB) is above the engine's 256 MiB: the total is what stops it
    const reads = new BoundedReads(store, 1024 * MiB);
    const error = await expectApiError(reads.query('SELECT uniqExact(number) AS n FROM numbers(40000000)'), 'unavailable', /short of memory/);
    expect(error.details.retryAfterSeconds).toBe(5);
    expect(await reads.query('SELECT count() AS n FROM numbers(1000)')).toEqual([{ n: 1000 }]);
  });
});
