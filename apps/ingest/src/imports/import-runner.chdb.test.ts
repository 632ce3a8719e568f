import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS } from '@sightline/bus';
import type { ImportProgress } from '@sightline/events-schema';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../migrations-dir.js';
import { ImportRunner } from './import-runner.js';
import { ImportStore } from './import-store.js';
import { receiveImport } from './receive-import.js';
import { writeImport } from './write-import.js';

// The runner on the real ClickHouse engine (chDB): interrupted uploads, restarts, re-runs.
describe('import runner on chDB', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  let bus: LocalBus;
  let store: ImportStore;
  const reports: ImportProgress[] = [];
  const log = createLogger({ level: 'silent' });
  const line = (visitor: string, minute: number, name = 'pageview') =>
    JSON.stringify({ timestamp: new Date(Date.UTC(2024, 2, 1, 10, minute)).toISOString(), name, visitor_id: visitor, pathname: `/m${minute}` });
  async function* chunks(text: string, failAfter?: number): AsyncGenerator<Buffer> {
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 4096) {
      if (failAfter !== undefined && i >= failAfter) throw new Error('client went away');
      yield bytes.subarray(i, i + 4096);
    }
  }
  const count = async (table: string, importId: number) =>
    Number((await events.query<{ c: number }>(`SELECT count() AS c FROM ${table} WHERE import_id = {id:UInt64}`, { id: importId }))[0]!.c);
  const waitFor = async (predicate: () => boolean) => {
    for (let i = 0; i < 200 && !predicate(); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(predicate()).toBe(true);
  };

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: path.join(dir.path, 'events'), database: 'runner_test' });
    await runEventMigrations(events, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    await bus.consume<typeof SUBJECTS.importProgress>({
      stream: STREAM_NAMES.imports,
      durable: 'test',
      filterSubject: SUBJECTS.importProgress,
      handler: async (m) => void reports.push(m.data),
    });
    store = new ImportStore(events);
  }, 60_000);

  afterAll(async () => {
    await bus?.close();
    await events?.close();
    await dir?.remove();
  });

  it('an upload cut off midway keeps nothing, never reaches staging, and reports failed', async () => {
    const runner = new ImportRunner(store, bus, log, () => Date.now());
    // 12 000 lines cut after 11 000: spooled to a file, none of it staged before its end
    const lines = Array.from({ length: 12_000 }, (_, i) => line(`v${i}`, i % 600));
    const cut = Buffer.byteLength(lines.slice(0, 11_000).join('\n'));
    const staging = vi.spyOn(store, 'stage');
    await expect(runner.receive({ importId: 101, siteId: 1, format: 'sightline' }, chunks(lines.join('\n'), cut))).rejects.toThrow('client went away');
    expect(staging).not.toHaveBeenCalled();
    staging.mockRestore();
    expect(await count('import_staging', 101)).toBe(0);
    expect(await store.run(101)).toBeUndefined();
    await waitFor(() => reports.some((r) => r.import_id === 101));
    expect(reports.find((r) => r.import_id === 101)).toMatchObject({ status: 'failed', accepted: 0, failure: expect.stringContaining('interrupted') });
  });

  it('after a crash during an upload (staged rows, no run), the restart drops them and fails the job', async () => {
    const partial = await receiveImport(store, { importId: 102, siteId: 1, format: 'sightline' }, chunks(`${line('a', 1)}\n${line('b', 2)}\n`), () =>
      Date.now(),
    );
    expect(partial.accepted).toBe(2); // staged, but the process "died" before recording the run
    expect(await count('import_staging', 102)).toBe(2);
    // another replica's unfinished upload (it may be running right now) is not this replica's to judge
    await receiveImport(store, { importId: 106, siteId: 1, format: 'sightline', replica: 1 }, chunks(`${line('c', 3)}\n`), () => Date.now());
    const restarted = new ImportRunner(store, bus, log, () => Date.now());
    await restarted.resume();
    expect(await count('import_staging', 102)).toBe(0);
    expect(await count('import_staging', 106)).toBe(1);
    await new ImportRunner(store, bus, log, () => Date.now(), 1).resume();
    expect(await count('import_staging', 106)).toBe(0);
    await waitFor(() => reports.some((r) => r.import_id === 102));
    expect(reports.find((r) => r.import_id === 102)).toMatchObject({ status: 'failed', failure: expect.stringContaining('restart') });
  });

  it('writing a staged import twice (a re-run after a crash) leaves each row once', async () => {
    // visitor a: 10:00, 10:10 (one visit), 11:00 (another); visitor b: one visit
    const staged = await receiveImport(
      store,
      { importId: 103, siteId: 1, format: 'sightline' },
      chunks([line('a', 0), line('a', 10), line('a', 60), line('b', 5)].join('\n')),
      () => Date.now(),
    );
    const wanted = async () => true;
    const first = await writeImport(store, staged, wanted);
    const again = await writeImport(store, staged, wanted);
    expect([first.done, again.done]).toEqual([true, true]);
    expect(await count('events', 103)).toBe(4);
    expect(Number((await events.query<{ c: number }>('SELECT sum(sign) AS c FROM sessions WHERE import_id = 103'))[0]!.c)).toBe(3);
    expect(await count('sessions', 103)).toBe(3);
  });

  it('resumes a staged import at start-up and reports it completed; a deleted one is not written', async () => {
    const text = [line('x', 0), line('x', 1), line('y', 2)].join('\n');
    const run = await receiveImport(store, { importId: 104, siteId: 2, format: 'sightline' }, chunks(text), () => Date.now());
    await store.recordRun(run, Date.now()); // staged and recorded, then the process died before writing
    const deleted = await receiveImport(store, { importId: 105, siteId: 2, format: 'sightline' }, chunks(text), () => Date.now());
    await store.recordRun(deleted, Date.now());
    const restarted = new ImportRunner(store, bus, log, () => Date.now());
    await restarted.delete(2, 105);
    await restarted.resume();
    await restarted.idle();
    expect([await count('events', 104), await count('import_staging', 104)]).toEqual([3, 0]);
    expect([await count('events', 105), await count('import_staging', 105)]).toEqual([0, 0]);
    await waitFor(() => reports.some((r) => r.import_id === 104 && r.status === 'completed'));
    const mine = reports.filter((r) => r.import_id === 104);
    expect(mine.map((r) => r.status)).toEqual(['running', 'completed']);
    expect(mine[1]!.seq).toBeGreaterThan(mine[0]!.seq);
    expect(reports.some((r) => r.import_id === 105)).toBe(false);
  });
});
