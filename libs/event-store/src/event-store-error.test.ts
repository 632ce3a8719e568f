import { describe, expect, it } from 'vitest';
import { EventStoreError, toEventStoreError } from './event-store-error.js';

describe('toEventStoreError', () => {
  it('reads code, type and message from a chDB-style error', () => {
    const raw = Object.assign(new Error("Code: 60. DB::Exception: Unknown table expression identifier 'x'. (UNKNOWN_TABLE)"), {
      clickhouseCode: 60,
      code: 'CHDB_QUERY',
    });
    const e = toEventStoreError(raw);
    expect(e).toBeInstanceOf(EventStoreError);
    expect(e).toMatchObject({ code: 60, type: 'UNKNOWN_TABLE', message: "Unknown table expression identifier 'x'." });
    expect(e.cause).toBe(raw);
  });

  it('reads a @clickhouse/client-style error (string code, parsed message)', () => {
    const raw = Object.assign(new Error('Syntax error: failed at position 1'), { code: '62', type: 'SYNTAX_ERROR' });
    expect(toEventStoreError(raw)).toMatchObject({ code: 62, type: 'SYNTAX_ERROR', message: 'Syntax error: failed at position 1' });
  });

  it('keeps anything else as message only, and is idempotent', () => {
    const e = toEventStoreError(new Error('socket hang up'));
    expect(e).toMatchObject({ code: undefined, type: undefined, message: 'socket hang up' });
    expect(toEventStoreError(e)).toBe(e);
  });
});
