/**
 * Hostile requests generated from the served OpenAPI document: every operation it
 * lists, with malformed path parameters, bodies, content types, tokens and
 * methods. Seeded, so a failure replays exactly; bounded by `count`.
 */

export interface OpenApiDocument {
  servers?: Array<{ url: string }>;
  paths: Record<string, PathItem>;
}

interface PathItem {
  servers?: Array<{ url: string }>;
  [method: string]: unknown;
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
}

export interface DocumentedOperation {
  method: string;
  /** the path template as documented, e.g. /sites/{id} */
  template: string;
  /** server URL + template: the absolute path a client following the document calls */
  absoluteTemplate: string;
  body?: JsonSchema;
  authenticated: boolean;
}

export interface FuzzRequest {
  method: string;
  /** raw request target, sent byte for byte (no URL normalisation) */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** what was mutated, for the failure report */
  label: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

/** Every operation of the document, each resolved against its own (path-level) or the document's server. */
export function documentedOperations(document: OpenApiDocument): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const server = item.servers?.[0]?.url ?? document.servers?.[0]?.url ?? '';
    const prefix = server.startsWith('http') ? new URL(server).pathname.replace(/\/$/, '') : server;
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        absoluteTemplate: `${prefix}${template}`,
        body: operation.requestBody?.content?.['application/json']?.schema,
        authenticated: (operation.security?.length ?? 0) > 0,
      });
    }
  }
  return operations;
}

/** mulberry32: small, fast, good enough to pick mutations reproducibly */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Path segments a hostile client tries in place of an id.
const HOSTILE_SEGMENTS = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '18446744073709551616',
  '99999999999999999999999999',
  '%00',
  '1%00',
  '%',
  '1%',
  '%zz',
  '%C0%AF',
  '%F0%9F%92%A9',
  '%E2%80%AE',
  'null',
  'undefined',
  "'%20OR%201=1--",
  '..',
  '%2e%2e',
  '%2F',
  'a'.repeat(201),
  '9'.repeat(250),
  '%20',
  '%0A',
  'key_%00',
  'key_' + 'A'.repeat(20),
];

/** Stands for a value nested 10,000 deep (20 KB): spliced into the JSON text, since JSON.stringify would overflow on it. */
const DEEP_MARK = '\u0001deep';
const DEEP_NESTING = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;

// Values a hostile client puts in a JSON field: wrong types, extreme numbers and
// dates (the date step once threw on years before 1000), deep nesting, huge arrays.
const HOSTILE_VALUES: unknown[] = [
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  9007199254740992,
  2 ** 64,
  -0,
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x'.repeat(5000),
  '%00',
  null,
  true,
  false,
  [],
  {},
  [null],
  { nested: { deeper: [1, 2, 3] } },
  '1',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '0000-01-01',
  '9999-12-31',
  ['0500-01-01', '0500-01-02'],
  ['9999-12-31', '9999-12-31'],
  ['0000-01-01', '0000-01-01'],
  ['1899-12-31', '1900-01-01'],
  ['2299-12-31', '2300-01-01'],
  DEEP_MARK,
  Array.from({ length: 20_000 }, (_, i) => i),
  Array.from({ length: 2_000 }, () => ({ field: 'page', operator: 'is', values: ['/'] })),
];

// Whole bodies that are not what any route expects.
const HOSTILE_BODIES = [
  '',
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '42',
  '1e400',
  '{"a":1e400}',
  '\u0000',
  '{"__proto__":{"x":1}}',
  '['.repeat(2000),
  '{"a":"\\ud800"}',
  DEEP_NESTING,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  '{"constructor":{"prototype":{"x":1}}}',
  `[${'1,'.repeat(100_000)}1]`,
];

/** Keys that would become a prototype if copied by assignment: put first in an object body. */
const PROTOTYPE_KEYS = ['"__proto__":{"polluted":true}', '"\\u005f_proto__":{"polluted":true}', '"constructor":{"prototype":{"polluted":true}}'];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
];

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'PURGE', 'LOCK', 'MKCOL', 'REPORT', 'LINK'];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

/** A well-formed instance of a (simple) JSON schema: the starting point of a body mutation. */
function sampleOf(schema: JsonSchema | undefined, random: () => number, depth = 0): unknown {
  if (!schema || depth > 4) return null;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return sampleOf(pick(random, variants), random, depth + 1);
  if (schema.enum) return pick(random, schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sampleOf(value, random, depth + 1)]));
    case 'array':
      return [sampleOf(schema.items, random, depth + 1)];
    case 'integer':
      return 1 + Math.floor(random() * 3);
    case 'number':
      return 1;
    case 'boolean':
      return random() < 0.5;
    case 'string':
      return 'fuzz';
    default:
      return null;
  }
}

function fillTemplate(template: string, random: () => number, knownIds: Record<string, string>, hostile: boolean): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => (hostile || !knownIds[name] ? pick(random, HOSTILE_SEGMENTS) : knownIds[name]!));
}

/**
 * `count` requests over `operations`. Each starts from a plausible request (known
 * ids, a body of the documented shape, a valid token) and breaks one or two things.
 */
export function generateFuzzRequests(
  operations: DocumentedOperation[],
  options: {
    seed: number;
    count: number;
    token: string;
    knownIds: Record<string, string>;
    /** `METHOD template`s never sent with known ids (they would delete the fixtures) */ spare?: string[];
  },
): FuzzRequest[] {
  const random = seededRandom(options.seed);
  const requests: FuzzRequest[] = [];
  for (let i = 0; i < options.count; i += 1) {
    const operation = pick(random, operations);
    const roll = random();
    const hostilePath = roll < 0.35 || (options.spare ?? []).includes(`${operation.method} ${operation.template}`);
    let method = operation.method;
    let path = fillTemplate(operation.absoluteTemplate, random, options.knownIds, hostilePath);
    const headers: Record<string, string> = { 'user-agent': 'sightline-fuzz/1.0', 'x-forwarded-for': `198.51.100.${1 + Math.floor(random() * 250)}` };
    if (operation.authenticated || random() < 0.2) {
      const tokenRoll = random();
      headers.authorization =
        tokenRoll < 0.8
          ? `Bearer ${options.token}`
          : pick(random, ['Bearer ', 'Bearer sl_x', 'Basic YTpi', `Bearer ${options.token}x`, 'Bearer sl_' + 'A'.repeat(500)]);
    }
    let body: string | undefined;
    let label = hostilePath ? 'hostile path' : 'plausible path';
    if (operation.body || (method !== 'GET' && method !== 'HEAD' && random() < 0.3)) {
      headers['content-type'] = random() < 0.8 ? 'application/json' : pick(random, CONTENT_TYPES);
      const bodyRoll = random();
      if (bodyRoll < 0.25) {
        body = pick(random, HOSTILE_BODIES);
        label += ', hostile body';
      } else {
        const sample = sampleOf(operation.body, random);
        let prototypeKey: string | undefined;
        if (sample && typeof sample === 'object' && !Array.isArray(sample)) {
          const keys = Object.keys(sample);
          const field = keys.length > 0 && random() < 0.85 ? pick(random, keys) : 'unexpected_field';
          (sample as Record<string, unknown>)[field] = pick(random, HOSTILE_VALUES);
          label += `, field ${field}`;
          if (random() < 0.1) prototypeKey = pick(random, PROTOTYPE_KEYS);
        }
        body = JSON.stringify(sample).replace(JSON.stringify(DEEP_MARK), DEEP_NESTING);
        if (prototypeKey) {
          body = body.replace(/^\{/, `{${prototypeKey}${body === '{}' ? '' : ','}`);
          label += `, ${prototypeKey.slice(0, 16)}`;
        }
      }
    }
    if (random() < 0.08) {
      method = pick(random, OTHER_METHODS);
      label += `, method ${method}`;
      if ((options.spare ?? []).includes(`${method} ${operation.template}`)) path = fillTemplate(operation.absoluteTemplate, random, options.knownIds, true);
    }
    if (random() < 0.05) {
      path += pick(random, [
        '?',
        '?a=%',
        '?limit=-1',
        '?cursor=%00',
        '?limit=1e308',
        '?x=' + 'y'.repeat(3000),
        '#frag',
        '/',
        '//',
        // extreme dates and repeated parameters (GET /props once answered 500 and "NaN")
        `?site_id=${options.knownIds.id ?? 1}&date_range=0500-01-01,0500-01-02`,
        `?site_id=${options.knownIds.id ?? 1}&date_range=9999-12-31,9999-12-31`,
        '?site_id=1&site_id=2&date_range=7d',
        '?limit=1&limit=2',
      ]);
      label += ', query';
    }
    if (method === 'GET' || method === 'HEAD') body = undefined;
    requests.push({ method, path, headers, body, label: `${operation.method} ${operation.template}: ${label}` });
  }
  return requests;
}
