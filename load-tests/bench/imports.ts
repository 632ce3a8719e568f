import path from 'node:path';
import { LocalBus, SIGHTLINE_STREAMS } from '@sightline/bus';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../../apps/ingest/src/migrations-dir.js';
import { ImportRunner } from '../../apps/ingest/src/imports/import-runner.js';
import { ImportStore } from '../../apps/ingest/src/imports/import-store.js';
import { spoolUpload } from '../../apps/ingest/src/imports/upload-spool.js';

const PAGES = ['/', '/pricing', '/docs', '/blog/a', '/blog/b', '/signup'];
const SOURCES = [{}, { referrer: 'https://www.google.com/' }, { utm_source: 'newsletter', utm_medium: 'email' }, { referrer: 'https://news.ycombinator.com/' }];

/** `rows` NDJSON lines in 64 KiB chunks: visitors of 20 events, two visits each, over a month. */
async function* upload(rows: number): AsyncGenerator<Buffer> {
  let text = '';
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < rows; i += 1) {
    const visitor = Math.floor(i / 20);
    const k = i % 20;
    const at = start + (visitor % 30) * 86_400_000 + (visitor % 1440) * 60_000 + k * 90_000 + (k >= 10 ? 7_200_000 : 0);
    const row = {
      timestamp: new Date(at).toISOString(),
      name: k % 7 === 6 ? 'signup' : 'pageview',
      visitor_id: `v${visitor}`,
      hostname: 'example.org',
      pathname: PAGES[k % PAGES.length],
      browser: 'Firefox',
      browser_version: '128.0',
      os: 'Linux',
      device: 'Desktop',
      country: 'DE',
      ...SOURCES[visitor % SOURCES.length],
    };
    text += `${JSON.stringify(row)}\n`;
    if (text.length >= 65_536) {
      yield Buffer.from(text);
      text = '';
    }
  }
  if (text) yield Buffer.from(text);
}

/**
 * An import of ROWS (default 1 000 000) events straight into ingest's import runner on
 * chDB: rows/s spooled to the upload's temp file alone, rows/s parsed and staged, rows/s sessionized and written, and the peak
 * resident memory of the process while importing (sampled every 100 ms).
 */
export async function benchImports(rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000)): Promise<Record<string, string | number>> {
  const dir = await makeTempDir('sightline-bench-imports-');
  const store = await ChdbEventStore.open({ path: path.join(dir.path, 'events'), database: 'bench' });
  const bus = new LocalBus();
  const figures: Record<string, string | number> = {};
  let peakRss = 0;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed + m.external + m.arrayBuffers);
  }, 100);
  try {
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    await runEventMigrations(store, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    const runner = new ImportRunner(new ImportStore(store), bus, createLogger({ level: 'silent' }), () => Date.now());
    // the spool alone (the upload written to its temp file and read back), beside parse + stage in the same run
    const s0 = performance.now();
    const spooled = await spoolUpload(upload(rows));
    for await (const chunk of spooled.read()) void chunk;
    await spooled.remove();
    const spoolSeconds = (performance.now() - s0) / 1000;
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    const staged = await runner.receive({ importId: 1, siteId: 1, format: 'sightline' }, upload(rows));
    const t1 = performance.now();
    await runner.idle();
    const t2 = performance.now();
    const [written] = await store.query<{ events: number; sessions: number }>(
      'SELECT (SELECT count() FROM events WHERE import_id = 1) AS events, (SELECT sum(sign) FROM sessions WHERE import_id = 1) AS sessions',
    );
    figures[`rows accepted / rejected`] = `${staged.accepted} / ${staged.rejected}`;
    figures['events / sessions written'] = `${written!.events} / ${written!.sessions}`;
    figures['parse + stage: rows/s (includes the spool)'] = Math.round(rows / ((t1 - t0) / 1000));
    figures['spool alone (write + read back): rows/s, share of parse + stage'] =
      `${Math.round(rows / spoolSeconds)}, ${Math.round((100 * spoolSeconds) / ((t1 - t0) / 1000))} %`;
    figures['sessionize + write: rows/s'] = Math.round(rows / ((t2 - t1) / 1000));
    figures['whole import: rows/s'] = Math.round(rows / ((t2 - t0) / 1000));
    figures['whole import: seconds'] = ((t2 - t0) / 1000).toFixed(1);
    figures['RSS before / peak while importing (MB, chDB engine included)'] = `${Math.round(rssBefore / 2 ** 20)} / ${Math.round(peakRss / 2 ** 20)}`;
    figures['JS heap + buffers peak while importing (MB)'] = Math.round(peakHeap / 2 ** 20);
    await runner.stop();
  } finally {
    clearInterval(sampler);
    await bus.close();
    await store.close();
    await dir.remove();
  }
  return figures;
}
