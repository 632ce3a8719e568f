import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PgliteDb } from './pglite-db.js';

// A real SDK (with the async context manager) in this test process only: each test file runs in its own fork.
const exporter = new InMemorySpanExporter();
new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();

describe('query tracing', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.create();
  });
  afterAll(() => db?.close());
  beforeEach(() => exporter.reset());

  it('records one db.query span per statement with the SQL but never the parameter values', async () => {
    await db.query('SELECT $1::text AS email', ['person@example.com']);

    const [span, ...rest] = exporter.getFinishedSpans();
    expect(rest).toEqual([]);
    expect(span!.name).toBe('db.query');
    expect(span!.instrumentationScope.name).toBe('@sightline/db');
    expect(span!.attributes).toEqual({ 'db.system': 'postgresql', 'db.statement': 'SELECT $1::text AS email' });
    expect(JSON.stringify(span!.attributes)).not.toContain('person@example.com');
  });

  it('truncates long statements', async () => {
    const longSql = `SELECT 1 AS v${' '.repeat(2000)}`;
    await db.query(longSql);
    const statement = String(exporter.getFinishedSpans()[0]!.attributes['db.statement']);
    expect(statement.length).toBeLessThanOrEqual(501);
    expect(statement.startsWith('SELECT 1 AS v')).toBe(true);
  });

  it('nests statement spans under a db.transaction span', async () => {
    await db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await tx.query('SELECT 2');
    });
    const spans = exporter.getFinishedSpans();
    const transaction = spans.find((s) => s.name === 'db.transaction');
    const queries = spans.filter((s) => s.name === 'db.query');
    expect(transaction).toBeDefined();
    expect(queries.map((q) => q.attributes['db.statement'])).toEqual(['SELECT 1', 'SELECT 2']);
    for (const q of queries) expect(q.parentSpanContext?.spanId).toBe(transaction!.spanContext().spanId);
  });

  it('marks a failed statement as an error', async () => {
    await expect(db.query('SELECT * FROM missing_table')).rejects.toMatchObject({ code: '42P01' });
    const [span] = exporter.getFinishedSpans();
    expect(span!.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(span!.events.map((e) => e.name)).toContain('exception');
  });
});
