import { seededRandom } from './openapi-fuzzer.js';

/** One request to POST /api/event and the statuses a correct edge may answer it with. */
export interface EventBodyCase {
  label: string;
  body: string | Buffer;
  /** absent: no Content-Type header at all */
  contentType?: string;
  expected: readonly number[];
}

type Event = Record<string, unknown>;

const BAD = [400] as const;

/** Per field, values the tracker schema must refuse (wrong type, out of bounds, junk). */
const INVALID_FIELD_VALUES: Record<string, unknown[]> = {
  k: ['', 'short', 'k'.repeat(65), 'key with space', 'ключключключ', '\u0000'.repeat(12), 12345678, null, [], {}, true],
  n: ['', 'n'.repeat(121), 1, null, [], { name: 'x' }, false],
  u: ['', 'u'.repeat(2049), null, 5, ['https://x.net/'], { href: 'x' }],
  d: ['', 'd'.repeat(254), null, 7, [], {}],
  r: [5, [], {}, 'r'.repeat(2049), true],
  p: [
    'props',
    [],
    5,
    { a: {} },
    { a: null },
    { '': 1 },
    { ['k'.repeat(65)]: 1 },
    { a: 'v'.repeat(257) },
    { a: [1] },
    Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i])),
  ],
  e: [-1, 1.5, 86_400_001, '5', {}, true],
  sd: [101, -1, 1.5, '50', []],
  sc: [99, 600, 200.5, '200', {}],
  s: ['s'.repeat(65), 5, {}, []],
};

/** Fields the schema does not know (it is strict), prototype tricks included. */
const UNKNOWN_FIELDS: [string, unknown][] = [
  ['x', 1],
  ['__proto__', { polluted: true }],
  ['constructor', { prototype: {} }],
  ['K', 'key'],
  ['ts', '2020-01-01T00:00:00Z'],
  ['ip', '1.2.3.4'],
];

const OPTIONAL_FIELDS = ['r', 'p', 'e', 'sd', 'sc', 's'];

/**
 * Seeded malformed bodies for POST /api/event, built from a valid event: every case
 * is refused by the tracker schema (or by the body parser, size limit or content
 * type), so each has one expected status — a 202 or a 5xx is a finding. A few valid
 * edge cases (nulls in every optional field, as other trackers send) expect 202.
 */
export function eventBodyCases(valid: Event, options: { seed: number; mutations: number }): EventBodyCase[] {
  const json = (value: unknown) => JSON.stringify(value);
  const cases: EventBodyCase[] = [];
  const add = (label: string, body: string | Buffer, expected: readonly number[], contentType: string | undefined = 'text/plain') =>
    cases.push({ label, body, contentType, expected });

  // whole bodies that are no event object
  for (const body of [
    '',
    ' ',
    '{',
    '{"k":',
    'null',
    'true',
    '[]',
    '"text"',
    '42',
    '1e400',
    '{}',
    '{"k":"a"}{"k":"b"}',
    '\u0000',
    '\ufeff{}',
    `[${json(valid)}]`,
    '['.repeat(5_000),
    '{"a":'.repeat(1_000),
  ]) {
    add(`body ${json(body.slice(0, 20))}`, body, BAD);
  }
  // invalid UTF-8: in the key (refused by its pattern) and as the whole body
  const [head, tail] = json({ ...valid, k: 'KEYMARK' }).split('KEYMARK') as [string, string];
  add(
    'invalid UTF-8 in k',
    Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28]), Buffer.from(tail)]),
    BAD,
  );
  add('invalid UTF-8 body', Buffer.from([0xff, 0xfe, 0xfd, 0x7b, 0xc0, 0xaf, 0x7d]), BAD);
  add('lone surrogate escape in k', json(valid).replace(/"k":"[^"]+"/, '"k":"\\ud800abcdefgh"'), BAD);
  // over the 8 KiB limit
  add('9 KiB string in u', json({ ...valid, u: `https://x.net/${'a'.repeat(9_000)}` }), [413]);
  add('1 MiB body', 'x'.repeat(1 << 20), [413]);
  // a valid event under content types the endpoint does not take
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream', 'image/png'])
    add(`content-type ${type}`, json(valid), [400, 415], type);
  // without a Content-Type the body is read as JSON (a valid event is then accepted) or refused
  add('no content-type', json(valid), [202, 400, 415], undefined);
  add('application/json, not JSON', 'k=v&n=pageview', BAD, 'application/json');
  // nulls: in a required field refused, in every optional field accepted
  for (const field of ['k', 'n', 'u', 'd']) add(`null ${field}`, json({ ...valid, [field]: null }), BAD);
  add('null in every field', json(Object.fromEntries(['k', 'n', 'u', 'd', ...OPTIONAL_FIELDS].map((f) => [f, null]))), BAD);
  add('null in every optional field', json({ ...valid, ...Object.fromEntries(OPTIONAL_FIELDS.map((f) => [f, null])) }), [202]);
  for (const field of ['k', 'n', 'u', 'd']) {
    const { [field]: _missing, ...rest } = valid;
    add(`no ${field}`, json(rest), BAD);
  }
  for (const [field, value] of UNKNOWN_FIELDS) add(`unknown field ${field}`, `${json(valid).slice(0, -1)},${json(field)}:${json(value)}}`, BAD);
  // balanced nesting far deeper than any body (3,000 levels fit in 8 KiB), in a field and as the body
  for (const field of ['p', 'x']) add(`${field} nested 3000 deep`, `${json(valid).slice(0, -1)},${json(field)}:${'['.repeat(3_000)}${']'.repeat(3_000)}}`, BAD);
  add('body nested 1000 deep', `${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}`, BAD);
  for (const [field, values] of Object.entries(INVALID_FIELD_VALUES)) {
    for (const value of values) add(`${field} = ${json(value).slice(0, 40)}`, json({ ...valid, [field]: value }), BAD);
  }

  // seeded combinations: one to three invalid fields at once, nested junk on top
  const random = seededRandom(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const fields = Object.keys(INVALID_FIELD_VALUES);
  for (let i = 0; i < options.mutations; i += 1) {
    const event: Event = { ...valid };
    const changed: string[] = [];
    for (let m = 1 + Math.floor(random() * 3); m > 0; m -= 1) {
      const field = pick(fields);
      event[field] = pick(INVALID_FIELD_VALUES[field]!);
      changed.push(field);
    }
    if (random() < 0.3) event[pick(fields)] = { nested: [[[{ deeper: pick(INVALID_FIELD_VALUES[pick(fields)]!) }]]] };
    add(`seeded #${i}: ${changed.join(', ')}`, json(event), BAD, random() < 0.8 ? 'text/plain' : 'application/json');
  }
  return cases;
}
