import http from 'node:http';
import os from 'node:os';
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import { STORED_EVENT_SELECT } from '@sightline/query';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { NO_BUDGETS } from './auth.js';
import { api, registerOwner } from './query.js';
import { generateQueryData } from './query-data.js';

const EVENTS = Number(process.env.EXPORT_BENCH_EVENTS ?? 1_000_000);
const SAMPLE_MS = 25;
const MB = 1024 * 1024;

/** Samples this process's RSS while `work` runs: before, peak, and after (once the work is done and a GC ran). */
async function rssAround(work: () => Promise<unknown>): Promise<{ before: number; peak: number; after: number; ms: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), SAMPLE_MS);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage().rss);
  global.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  return { before, peak, after: process.memoryUsage().rss, ms };
}

/** Downloads and drops the body (as a client saving to disk would), counting bytes. */
function drain(url: string, token: string): Promise<{ bytes: number; rows: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
        let bytes = 0;
        if (response.statusCode !== 200) reject(new Error(`export answered ${response.statusCode}`));
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ bytes, rows: response.trailers['x-export-rows'] }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

const mb = (bytes: number) => (bytes / MB).toFixed(0);

/**
 * GET /sites/{id}/export of EXPORT_BENCH_EVENTS events in one process (`npm start`'s
 * composition: gateway → gRPC → query service → chDB, all in this process's RSS):
 * RSS before, at peak and after each format, beside the baseline of the same rows
 * read by one statement (what an export that holds its rows would cost).
 */
export async function benchExport(): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-export-');
  const figures: Record<string, string | number> = {};
  const config = loadConfig({
    ...process.env,
    ...NO_BUDGETS,
    SIGHTLINE_DATA_DIR: dir.path,
    PORT: '0',
    HOST: '127.0.0.1',
    GRPC_DEADLINE_MS: '120000',
    EXPORT_RATE_LIMIT_PER_HOUR: '0',
  });
  const sightline = await startSightline({
    config,
    log: createLogger({ level: (process.env.EXPORT_BENCH_LOG as 'warn' | undefined) ?? 'silent' }),
    target: 'all',
  });
  try {
    const url = sightline.url!;
    const store = sightline.events!;
    const token = await registerOwner(url, dir.path);
    const siteId = (await api<{ site_id: number }>(`${url}/api/v1/sites`, token, { url: 'https://export.sightline-bench.net', timezone: 'UTC' })).site_id;
    const endMs = Date.UTC(2026, 0, 1);
    const generated = await generateQueryData(store, { siteIds: [siteId], events: EVENTS, days: 300, endMs, seed: 34 });
    figures['events exported (one site, 300 days)'] = generated.events.toLocaleString('en');
    figures['gc exposed (--expose-gc)'] = global.gc ? 'yes' : 'no: "after" includes uncollected garbage';
    const range = '2025-03-01,2026-01-01';
    const window = { site_id: siteId, start: new Date(Date.UTC(2025, 2, 1)), end: new Date(Date.UTC(2026, 0, 2)) };

    // warm the engine once (first statement opens the store, loads marks)
    await store.query('SELECT count() FROM events WHERE site_id = {site_id:UInt64}', window);
    const baseline = await rssAround(() =>
      store.query(
        `SELECT ${STORED_EVENT_SELECT} FROM events WHERE site_id = {site_id:UInt64} AND timestamp >= {start:DateTime64(3)} AND timestamp < {end:DateTime64(3)}`,
        window,
      ),
    );
    figures['baseline: the same rows by one statement, RSS before / peak / after (MB) | s'] =
      `${mb(baseline.before)} / ${mb(baseline.peak)} / ${mb(baseline.after)} | ${(baseline.ms / 1000).toFixed(1)}`;
    for (const format of ['ndjson', 'csv', 'parquet']) {
      let sent = { bytes: 0, rows: undefined as string | undefined };
      const run = await rssAround(async () => (sent = await drain(`${url}/api/v1/sites/${siteId}/export?date_range=${range}&format=${format}`, token)));
      figures[`${format}: RSS before / peak / after (MB) | peak − before | s | rows/s | MB sent`] =
        `${mb(run.before)} / ${mb(run.peak)} / ${mb(run.after)} | ${mb(run.peak - run.before)} | ${(run.ms / 1000).toFixed(1)} | ${Math.round(Number(sent.rows) / (run.ms / 1000)).toLocaleString('en')} | ${mb(sent.bytes)}`;
      figures[`${format}: rows in the trailer`] = sent.rows ?? 'missing';
    }
    figures['baseline peak − before (MB)'] = mb(baseline.peak - baseline.before);
    figures['1-min load average at the end (2 cores)'] = os.loadavg()[0]!.toFixed(1);
  } finally {
    await sightline.stop();
    await dir.remove();
  }
  return figures;
}
