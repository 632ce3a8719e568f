import path from 'node:path';
import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBus, SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS } from '@sightline/bus';
import type { ImportProgress } from '@sightline/events-schema';
import { ChdbEventStore, runEventMigrations } from '@sightline/event-store';
import { ingestV1 } from '@sightline/proto';
import { createLogger } from '@sightline/telemetry';
import { makeTempDir, serveOnLoopback, waitFor, type LoopbackService } from '@sightline/testkit';
import { INGEST_EVENT_MIGRATIONS_DIR } from '../migrations-dir.js';
import { startImports, type ImportsInstance } from './start-imports.js';

// IngestService.ImportEvents over real gRPC on chDB: an upload is kept only when its
// stream ends with the end message of a whole body. Whatever else ends it — the
// stream closed early, a byte count that does not match, a refusal over the limit,
// a cancel — stages nothing and fails the job with the reason.
describe('IngestService.ImportEvents: only a whole upload is kept', () => {
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let events: ChdbEventStore;
  let bus: LocalBus;
  let ingest: LoopbackService<ImportsInstance, ingestV1.IngestServiceClient>;
  const reports: ImportProgress[] = [];
  const log = createLogger({ level: 'silent' });
  const body = Buffer.from(
    Array.from(
      { length: 50 },
      (_, i) =>
        `${JSON.stringify({ timestamp: new Date(Date.UTC(2024, 2, 1, 10, i)).toISOString(), name: 'pageview', visitor_id: `v${i % 7}`, pathname: '/' })}\n`,
    ).join(''),
  );

  beforeAll(async () => {
    dir = await makeTempDir();
    events = await ChdbEventStore.open({ path: path.join(dir.path, 'events'), database: 'ingest_service_test' });
    await runEventMigrations(events, { dir: INGEST_EVENT_MIGRATIONS_DIR });
    bus = new LocalBus();
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    await bus.consume<typeof SUBJECTS.importProgress>({
      stream: STREAM_NAMES.imports,
      durable: 'test',
      filterSubject: SUBJECTS.importProgress,
      handler: async (m) => void reports.push(m.data),
    });
    ingest = await serveOnLoopback({
      name: 'ingest',
      log,
      start: () => startImports({ events, bus, log, clock: () => new Date() }),
      client: ingestV1.IngestServiceClient,
    });
  }, 60_000);

  afterAll(async () => {
    await ingest?.close();
    await bus?.close();
    await events?.close();
    await dir?.remove();
  });

  /** Sends the header and the body in 1 KiB chunks, then `finish`; resolves with the answer or the error. */
  function upload(
    importId: number,
    finish: (call: ReturnType<ingestV1.IngestServiceClient['importEvents']>) => void,
  ): Promise<{ response?: ingestV1.ImportEventsResponse; error?: ServiceError }> {
    return new Promise((resolve) => {
      const call = ingest.client.importEvents((error: ServiceError | null, response) => resolve(error ? { error } : { response }));
      call.write({ header: { importId, siteId: 1, format: 'sightline' }, data: Buffer.alloc(0) });
      for (let at = 0; at < body.length; at += 1024) call.write({ data: body.subarray(at, at + 1024) });
      finish(call);
    });
  }

  const staged = async (importId: number) =>
    Number((await events.query<{ c: number }>('SELECT count() AS c FROM import_staging WHERE import_id = {id:UInt64}', { id: importId }))[0]!.c);
  async function failure(importId: number): Promise<string | undefined> {
    await waitFor(() => reports.some((r) => r.import_id === importId && r.status === 'failed'));
    return reports.find((r) => r.import_id === importId && r.status === 'failed')?.failure;
  }

  it('a whole body, ended by its end message with the right count, is staged and queued', async () => {
    const answer = await upload(1, (call) => {
      call.write({ data: Buffer.alloc(0), end: { totalBytes: body.length, maxBytesExceeded: 0 } });
      call.end();
    });
    expect(answer.response).toMatchObject({ status: 'queued', accepted: 50, rejected: 0 });
    expect(reports.some((r) => r.import_id === 1 && r.status === 'queued')).toBe(true);
  });

  it('a stream that ends without the end message is interrupted: nothing staged', async () => {
    const answer = await upload(2, (call) => call.end());
    expect(answer.error).toBeDefined();
    expect(await failure(2)).toMatch(/^upload interrupted/);
    expect(await staged(2)).toBe(0);
  });

  it('an end message whose byte count is not what arrived is interrupted', async () => {
    const answer = await upload(3, (call) => {
      call.write({ data: Buffer.alloc(0), end: { totalBytes: body.length + 1, maxBytesExceeded: 0 } });
      call.end();
    });
    expect(answer.error).toBeDefined();
    expect(await failure(3)).toMatch(/^upload interrupted/);
    expect(await staged(3)).toBe(0);
  });

  it('a body refused over the limit fails naming the limit', async () => {
    const answer = await upload(4, (call) => {
      call.write({ data: Buffer.alloc(0), end: { totalBytes: 0, maxBytesExceeded: 2048 } });
      call.end();
    });
    expect(answer.error).toBeDefined();
    expect(await failure(4)).toBe('upload exceeds IMPORT_MAX_BYTES (2048 bytes); nothing was imported. Split the history into several imports.');
    expect(await staged(4)).toBe(0);
  });

  it('a cancelled call is interrupted', async () => {
    await upload(5, (call) => setTimeout(() => call.cancel(), 50));
    expect(await failure(5)).toMatch(/^upload interrupted/);
    expect(await staged(5)).toBe(0);
  });
});
