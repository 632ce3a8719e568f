import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { toEventStoreError } from './event-store-error.js';

/**
 * One CLIENT span per query / command / insert. Only the SQL text goes on the
 * span — parameters and rows never do (they stay out of the SQL by design), and
 * a failure is recorded by ClickHouse error code/type only, because ClickHouse
 * messages can quote the offending input value.
 */
const tracer = trace.getTracer('@sightline/event-store');

export const MAX_TRACED_STATEMENT_LENGTH = 2048;

export type TracedOperation = 'query' | 'command' | 'insert';

export interface TraceTarget {
  adapter: 'clickhouse' | 'chdb';
  database: string;
  statement: string;
  /** extra attributes, e.g. row count for inserts */
  attributes?: Attributes;
}

function truncate(statement: string): string {
  return statement.length <= MAX_TRACED_STATEMENT_LENGTH ? statement : `${statement.slice(0, MAX_TRACED_STATEMENT_LENGTH)}…`;
}

/** First keyword of the statement (SELECT, ALTER …), for the span name. */
function operationName(statement: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(statement)?.[1];
  return word ? word.toUpperCase() : 'SQL';
}

export function traced<T>(operation: TracedOperation, target: TraceTarget, run: () => Promise<T>): Promise<T> {
  const attributes: Attributes = {
    'db.system': 'clickhouse',
    'db.name': target.database,
    'db.namespace': target.database,
    'db.operation': operationName(target.statement),
    'db.statement': truncate(target.statement),
    'sightline.event_store.adapter': target.adapter,
    'sightline.event_store.operation': operation,
    ...target.attributes,
  };
  const name = `${operationName(target.statement)} ${target.database}`;
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      const { code, type } = toEventStoreError(error);
      if (type) span.setAttribute('error.type', type);
      if (code !== undefined) span.setAttribute('db.response.status_code', String(code));
      span.setStatus({ code: SpanStatusCode.ERROR, message: type ?? 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}
