import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from './chdb-event-store.js';
import { MAX_TRACED_STATEMENT_LENGTH } from './tracing.js';

describe('tracing', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let root: string;
  let store: ChdbEventStore;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    root = await mkdtemp(path.join(os.tmpdir(), 'sightline-trace-'));
    store = await ChdbEventStore.open({ path: root, database: 'traced' });
    exporter.reset();
  });

  afterAll(async () => {
    await store?.close();
    await provider.shutdown();
    trace.disable();
    await rm(root, { recursive: true, force: true });
  });

  it('records one CLIENT span per call with the statement and never the values', async () => {
    const secret = 'visitor-secret-value';
    await store.command('CREATE TABLE t (s String) ENGINE = MergeTree ORDER BY s');
    await store.insert('t', [{ s: secret }]);
    await store.query('SELECT count() AS n FROM t WHERE s = {s:String}', { s: secret });
    await store.query(`SELECT 1 AS x /* ${'y'.repeat(MAX_TRACED_STATEMENT_LENGTH)} */`);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['CREATE traced', 'INSERT traced', 'SELECT traced', 'SELECT traced']);
    for (const span of spans) {
      expect(span.kind).toBe(2); // CLIENT
      expect(span.attributes['db.system']).toBe('clickhouse');
      expect(span.attributes['db.name']).toBe('traced');
      expect(span.attributes['sightline.event_store.adapter']).toBe('chdb');
      expect(JSON.stringify(span.attributes)).not.toContain(secret);
      expect(JSON.stringify(span.events)).not.toContain(secret);
    }
    expect(spans[1]?.attributes).toMatchObject({ 'db.statement': 'INSERT INTO t FORMAT JSONCompactEachRow', 'db.operation.batch.size': 1 });
    expect(spans[2]?.attributes['db.statement']).toBe('SELECT count() AS n FROM t WHERE s = {s:String}');
    expect(String(spans[3]?.attributes['db.statement']).length).toBe(MAX_TRACED_STATEMENT_LENGTH + 1);
  });

  it('marks failures with the ClickHouse error type, not the message', async () => {
    exporter.reset();
    await expect(store.query('SELECT CAST({v:String} AS UInt8)', { v: 'leaky-value' })).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(2); // ERROR
    expect(span?.attributes['error.type']).toBe('CANNOT_PARSE_TEXT');
    expect(JSON.stringify([span?.attributes, span?.events, span?.status])).not.toContain('leaky-value');
  });
});
