import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { decodeQueryAnswer, decodeQueryRequest, encodeQueryAnswer, encodeQueryRequest, QUERY_REQUEST_MAX_BYTES, queryAnswerText } from './query-wire.js';
import { parseQueryRequest } from './query-request.js';
import type { QueryAnswer } from './query-answer.js';

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return [error.code, error.message];
    throw error;
  }
  return 'no error';
};

describe('the Query RPC payloads', () => {
  it('carry a parsed request through the wire unchanged, optional parts only when given', () => {
    const full = parseQueryRequest({
      metrics: ['visitors'],
      date_range: ['2026-01-01', '2026-01-31'],
      dimensions: ['event:page'],
      filters: [{ field: 'country', operator: 'is', values: ['DE'] }],
      compare: 'previous_period',
      limit: 5,
      offset: 10,
    });
    expect(decodeQueryRequest(encodeQueryRequest(full))).toEqual(full);
    const bare = parseQueryRequest({ metrics: ['visitors'], date_range: '7d' });
    expect(bare).toEqual({ metrics: ['visitors'], dateRange: '7d', dimensions: [], filters: [] });
    expect(JSON.parse(encodeQueryRequest(bare).toString())).toEqual({ metrics: ['visitors'], date_range: '7d', dimensions: [], filters: [] });
    expect(decodeQueryRequest(encodeQueryRequest(bare))).toEqual(bare);
  });

  it('decode through the one validator: its codes, whoever sent the bytes', () => {
    expect(failure(() => decodeQueryRequest(Buffer.from('{"metrics":')))).toEqual(['invalid_request', 'The query is not JSON.']);
    expect(failure(() => decodeQueryRequest(Buffer.from('{"site_id":1,"metrics":["visitors"],"date_range":"7d"}')))).toEqual([
      'invalid_request',
      'Unknown field: site_id.',
    ]);
    expect(failure(() => decodeQueryRequest(Buffer.from('{"metrics":[],"date_range":"7d"}')))[0]).toBe('metrics_required');
    expect(failure(() => decodeQueryRequest(Buffer.alloc(QUERY_REQUEST_MAX_BYTES + 1, 32)))[0]).toBe('payload_too_large');
  });

  it('carry an answer as its JSON text, nulls and key order kept', () => {
    const answer: QueryAnswer = {
      results: [
        {
          metrics: { visitors: 3, visit_duration: null },
          comparison: { metrics: { visitors: 0, visit_duration: null }, change: { visitors: null, visit_duration: null } },
        },
      ],
      has_import: false,
      query: {
        site_id: 7,
        metrics: ['visitors', 'visit_duration'],
        dimensions: [],
        filters: [],
        date_range: ['2026-06-01', '2026-06-07'],
        compare: ['2026-05-25', '2026-05-31'],
      },
    };
    const text = queryAnswerText(encodeQueryAnswer(answer));
    expect(text).toBe(JSON.stringify(answer));
    expect(decodeQueryAnswer(text)).toEqual(answer);
  });
});
