/**
 * One error shape for both adapters, so callers can branch on the ClickHouse
 * error code without knowing whether chDB or @clickhouse/client threw.
 *
 * `message` is ClickHouse's own text (without the `Code: N. DB::Exception:`
 * prefix), `code` its numeric error code and `type` its name (`SYNTAX_ERROR`).
 * The original error stays reachable as `cause`.
 */
export class EventStoreError extends Error {
  readonly code: number | undefined;
  readonly type: string | undefined;

  constructor(message: string, options: { code?: number; type?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'EventStoreError';
    this.code = options.code;
    this.type = options.type;
  }
}

// Same anchoring as @clickhouse/client's parser: the innermost exception wins,
// the message stops at the first `(TYPE_NAME)` marker.
const CLICKHOUSE_MESSAGE = /(?:Code|Error): (?<code>\d+).*Exception: (?<message>.+?)\s*\((?<type>(?=[A-Z0-9_]*[A-Z]{3})[A-Z0-9_]+)\)/s;

function codeOf(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** Normalizes anything an adapter caught into an EventStoreError (idempotent). */
export function toEventStoreError(error: unknown): EventStoreError {
  if (error instanceof EventStoreError) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const known = error as { code?: unknown; type?: unknown; clickhouseCode?: unknown };
  const match = raw.match(CLICKHOUSE_MESSAGE)?.groups;
  // chDB carries the code as `clickhouseCode`; @clickhouse/client's ClickHouseError as a string `code`.
  const code = codeOf(known.clickhouseCode) ?? codeOf(match?.code) ?? codeOf(known.code);
  const type = match?.type ?? (typeof known.type === 'string' ? known.type : undefined);
  const message = match?.message ?? raw;
  return new EventStoreError(message, { code, type, cause: error });
}
