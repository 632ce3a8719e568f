import path from 'node:path';
import { readFile } from 'node:fs/promises';
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

/**
 * User + system CPU seconds a process (all its threads) has used so far, from /proc/<pid>/stat
 * (Linux); with `mainThreadOnly`, its main thread's alone (JavaScript, the event loop), from
 * /proc/<pid>/task/<pid>/stat: the rest is the engine's threads, the libuv pool and GC helpers.
 */
export async function processCpuSeconds(pid: number, mainThreadOnly = false): Promise<number> {
  const stat = await readFile(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[11], fields[12]: utime, stime (fields 14 and 15 of proc(5)), in clock ticks
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

const CLOCK_TICKS = 100;
