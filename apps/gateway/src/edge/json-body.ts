import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '@sightline/errors';

/**
 * Every JSON body the gateway reads goes through `parseJsonBody`: bounded nesting
 * before anything walks the value, and no prototype keys.
 * - Depth: V8 parses deep JSON fine, but everything after it recurses (zod,
 *   JSON.stringify on the way to a service): 10,000 levels in 20 KB overflowed the
 *   stack and answered 500. The API's bodies nest a few levels (a query's filters:
 *   4); MAX_JSON_DEPTH leaves room. It is checked on the raw text before parsing:
 *   native searches settle the common body, one pass otherwise (cheap next to the
 *   parse itself: `npm run bench -- JSON`).
 * - `__proto__` anywhere, or a `constructor` holding a `prototype`, is refused as an
 *   unknown field (no route has one) instead of being handed on, where an
 *   Object.assign or a copy by key would turn it into a prototype.
 */
export const MAX_JSON_DEPTH = 32;

const GUARDED = { protoAction: 'error', constructorAction: 'error' } as const;
const NOT_JSON = 'The body is not valid JSON.';

/** At most `limit` of `[` and `{` in all (native searches: the common body is over in a few calls). */
function fewOpenings(text: string, limit: number): boolean {
  let count = 0;
  for (const opening of ['{', '[']) {
    for (let at = text.indexOf(opening); at !== -1; at = text.indexOf(opening, at + 1)) {
      count += 1;
      if (count > limit) return false;
    }
  }
  return true;
}

/** Whether `[`/`{` nest deeper than `limit` outside strings (the text need not be valid JSON). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // fewer openings than levels: cannot be that deep
  if (fewOpenings(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return false;
}

/** The prototype key that made secure-json-parse refuse a valid JSON value. */
function prototypeKeyOf(value: object): string {
  try {
    secureJson.scan(value, { protoAction: 'error', constructorAction: 'ignore' });
  } catch {
    return '__proto__';
  }
  return 'constructor';
}

/**
 * Whether the text could hold a prototype key: a key spelled out, or one written with
 * \u escapes. Neither: JSON.parse alone is safe, and the common body skips
 * secure-json-parse's own checks (they doubled the parse time of a tracker event).
 */
function mayHoldPrototypeKey(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

/** A request body's JSON text → its value, or the 400 that says what is wrong with it. */
export function parseJsonBody(raw: string): unknown {
  // a byte order mark is allowed, as fastify's own parser allowed it
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new ApiError('invalid_request', `The body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`);
  if (!mayHoldPrototypeKey(text)) {
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError('invalid_request', NOT_JSON);
    }
  }
  try {
    return secureJson.parse(text, null, GUARDED);
  } catch {
    // secure-json-parse throws the same SyntaxError for broken JSON and a refused key
    let plain: unknown;
    try {
      plain = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_request', NOT_JSON);
    }
    throw new ApiError('invalid_request', `Unknown field: ${prototypeKeyOf(plain as object)}.`);
  }
}

/** Replaces fastify's application/json parser (same limits, same empty-body answer) with parseJsonBody. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') {
      done(new ApiError('invalid_request', 'The body is empty; send a JSON object.'), undefined);
      return;
    }
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
