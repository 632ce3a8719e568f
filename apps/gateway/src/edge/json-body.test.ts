import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody, registerJsonBodyParser } from './json-body.js';
import { registerErrorRenderer } from './render-error.js';

// The HTTP path through the real routes is covered by apps/launcher/src/edge-fuzz.e2e.test.ts;
// here, the parser itself and a route that walks its body the way POST /query does.
const deep = (levels: number, open = '[', close = ']') => `${open.repeat(levels)}${close.repeat(levels)}`;
const refusal = (text: string): string => {
  try {
    parseJsonBody(text);
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
};

describe('JSON bodies', () => {
  it('counts nesting outside strings only', () => {
    expect(nestsDeeperThan(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(deep(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`${'{"b":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(`[${'[],'.repeat(1_000)}{}]`, MAX_JSON_DEPTH)).toBe(false);
    // brackets inside strings, escaped quotes included, are text
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(500), quoted: `\\"${'{'.repeat(500)}` }), MAX_JSON_DEPTH)).toBe(false);
    // unbalanced text is judged too (JSON.parse answers it after)
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });

  it('refuses deep nesting, prototype keys and broken JSON with a message saying which', () => {
    expect(refusal(deep(10_000))).toBe(`invalid_request: The body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`);
    expect(refusal('{"__proto__":{"x":1}}')).toBe('invalid_request: Unknown field: __proto__.');
    expect(refusal('{"filters":[{"\\u005f_proto__":{}}]}')).toBe('invalid_request: Unknown field: __proto__.');
    expect(refusal('{"constructor":{"prototype":{"x":1}}}')).toBe('invalid_request: Unknown field: constructor.');
    expect(refusal('{"a":')).toBe('invalid_request: The body is not valid JSON.');
    expect(refusal('{"__proto__":')).toBe('invalid_request: The body is not valid JSON.');
    // a plain constructor key is data; the route's schema decides about it
    expect(parseJsonBody('{"constructor":1,"name":"__proto__"}')).toEqual({ constructor: 1, name: '__proto__' });
    expect(parseJsonBody(`{"a":${deep(MAX_JSON_DEPTH - 1)}}`)).toBeTypeOf('object');
    expect(parseJsonBody('\ufeff{"a":1}')).toEqual({ a: 1 });
  });

  it('answers 400, not a stack overflow, on a route that serializes its body', async () => {
    const app = Fastify();
    registerErrorRenderer(app);
    registerJsonBodyParser(app);
    app.post('/echo', async (request) => ({ size: JSON.stringify(request.body).length }));
    await app.ready();
    const post = (payload: string) => app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    const tooDeep = await post(`{"metrics":["visitors"],"compare":${deep(10_000)}}`);
    expect([tooDeep.statusCode, tooDeep.json().code]).toEqual([400, 'invalid_request']);
    const proto = await post('{"__proto__":{"polluted":true}}');
    expect([proto.statusCode, proto.json().error]).toEqual([400, 'Unknown field: __proto__.']);
    const empty = await post('');
    expect([empty.statusCode, empty.json().error]).toEqual([400, 'The body is empty; send a JSON object.']);
    const fine = await post('{"a":[1,2,3]}');
    expect([fine.statusCode, fine.json()]).toEqual([200, { size: 13 }]);
    await app.close();
  });
});
