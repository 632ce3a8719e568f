import path from 'node:path';
import { ChdbEventStore } from '@sightline/event-store';
import { generateQueryData } from '../../bench/query-data.js';

/**
 * Fills a stopped single-process Sightline's data dir with `events` generated events for
 * one site (the query bench's generator, 30 days ending now), so the dashboard mix reads a
 * site of a realistic size instead of the tracker burst's few thousand events. The server
 * must be stopped: chDB holds its data directory in one process.
 */
export async function seedEvents(dataDir: string, siteId: number, events: number, seed = 42): Promise<{ events: number; sessions: number; seconds: number }> {
  const started = performance.now();
  const store = await ChdbEventStore.open({ path: path.join(dataDir, 'events') });
  try {
    const generated = await generateQueryData(store, { siteIds: [siteId], events, days: 30, endMs: Date.now(), seed });
    return { ...generated, seconds: Math.round((performance.now() - started) / 100) / 10 };
  } finally {
    await store.close();
  }
}
