import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * One span per statement and per transaction. Without a registered SDK the tracer
 * is a no-op proxy, so this costs a few object allocations per call.
 */
const tracer = trace.getTracer('@sightline/db');

/** Long statements (migration scripts) are cut: spans are for finding a query, not storing it. */
const MAX_STATEMENT_LENGTH = 500;

function statementAttribute(sql: string): string {
  return sql.length > MAX_STATEMENT_LENGTH ? `${sql.slice(0, MAX_STATEMENT_LENGTH)}…` : sql;
}

async function inSpan<T>(name: string, attributes: Record<string, string>, run: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await run();
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Wraps one statement. Only the SQL text is recorded — parameter values never are. */
export function traceQuery<T>(sql: string, run: () => Promise<T>): Promise<T> {
  return inSpan('db.query', { 'db.system': 'postgresql', 'db.statement': statementAttribute(sql) }, run);
}

/** Wraps a whole transaction; its statements' spans become children. */
export function traceTransaction<T>(run: () => Promise<T>): Promise<T> {
  return inSpan('db.transaction', { 'db.system': 'postgresql' }, run);
}
