import { z } from 'zod';

/**
 * The visit attribute catalogue: the one place a visit attribute is declared. A visit
 * attribute is fixed by the visit's first event and carried by every `events`,
 * `sessions` and `import_staging` row under the same column name. From this list come
 * the row types (`SessionAttributes`), the field-by-field copiers of the hot paths
 * (`attributes.generated.ts`, `npm run generate:attributes`), the import line's
 * columns (import-row.ts), the query's dimensions and filter fields
 * (apps/query/src/catalogue) and the published lists (OpenAPI, README).
 * `apps/ingest/src/attribute-catalogue.chdb.test.ts` holds it to the live DDL.
 *
 * Adding one: an entry here, `npm run generate:attributes`, a ClickHouse migration
 * adding the column to the three tables (apps/ingest/clickhouse), the enrichment that
 * fills it (apps/ingest/src/pipeline/prepare-event.ts; the compiler asks for it) and
 * its tests.
 */

/** What the query shows for an empty attribute when no other label is given (SEMANTICS "Empty values"). */
export const NOT_SET = '(not set)';

const text = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((v) => v ?? '');

/** The visit's size class from the viewport width: Mobile < 576 px, Tablet < 992, Laptop < 1440, Desktop. */
export const SCREEN_CLASSES = ['Mobile', 'Tablet', 'Laptop', 'Desktop'] as const;
export type ScreenClass = (typeof SCREEN_CLASSES)[number];

/** Widths where each class ends (exclusive), in SCREEN_CLASSES order; Desktop has none. */
const SCREEN_CLASS_ENDS = [576, 992, 1440] as const;

/** The size class of a viewport `width` in CSS pixels; '' (not recorded) for no width or a width below 1. */
export function screenClass(width: number | undefined): ScreenClass | '' {
  if (width === undefined || !(width >= 1)) return '';
  if (width < SCREEN_CLASS_ENDS[0]) return 'Mobile';
  if (width < SCREEN_CLASS_ENDS[1]) return 'Tablet';
  if (width < SCREEN_CLASS_ENDS[2]) return 'Laptop';
  return 'Desktop';
}

/** An import's `screen`: a class name (any case) or a viewport width in pixels, classified like live traffic. */
const importScreen = z
  .union([
    z
      .string()
      .max(16)
      .refine(
        (v) => v === '' || SCREEN_CLASSES.some((c) => c.toLowerCase() === v.trim().toLowerCase()),
        `screen must be one of ${SCREEN_CLASSES.join(', ')} or a width in pixels`,
      ),
    z.number().int().min(0).max(100_000),
  ])
  .nullish()
  .transform((v): ScreenClass | '' =>
    typeof v === 'number' ? screenClass(v) : (SCREEN_CLASSES.find((c) => c.toLowerCase() === (v ?? '').trim().toLowerCase()) ?? ''),
  );

export interface SessionAttributeSpec {
  /** the column in events, sessions and import_staging; the import line's key */
  readonly name: string;
  /** the row's JS type: text, or an integer (ClickHouse UInt*) */
  readonly ts: 'string' | 'number';
  /** the column's ClickHouse type in all three tables, codec aside (checked against system.columns) */
  readonly clickhouse: string;
  /** the stored value meaning "not recorded" */
  readonly empty: '' | 0;
  /** what a query shows (and a filter matches) for the empty value */
  readonly emptyLabel: string;
  /** the `visit:<name>` dimension and `<name>` filter field; false: stored, not queried */
  readonly queried: boolean;
  /** acquisition: a hostname filter keeps the visits that entered on it (SEMANTICS) */
  readonly acquisition?: true;
  /** the breakdown's rows carry a `labels` map of names (geo codes) */
  readonly labels?: 'country' | 'region' | 'city';
  /** the column in an import line (`sightline` format): null/absent means empty */
  readonly importSchema: z.ZodType<string, unknown> | z.ZodType<number, unknown>;
}

const LOW_CARDINALITY = 'LowCardinality(String)';
type TextExtras = Partial<Omit<SessionAttributeSpec, 'name' | 'ts' | 'empty'>>;
const visitText = <N extends string, E extends TextExtras = {}>(name: N, max: number, extra?: E) =>
  ({ name, ts: 'string', clickhouse: LOW_CARDINALITY, empty: '', emptyLabel: NOT_SET, queried: true, importSchema: text(max), ...extra }) as const;

/** In column order: the DDL, the generated copiers and the published lists follow it. */
export const SESSION_ATTRIBUTES = [
  visitText('referrer', 2048, { clickhouse: 'String', emptyLabel: 'Direct / None', acquisition: true }),
  visitText('source', 256, { emptyLabel: 'Direct / None', acquisition: true }),
  visitText('channel', 64, { emptyLabel: 'Direct', acquisition: true }),
  visitText('utm_source', 256, { acquisition: true }),
  visitText('utm_medium', 256, { acquisition: true }),
  visitText('utm_campaign', 256, { acquisition: true }),
  visitText('utm_content', 256, { acquisition: true }),
  visitText('utm_term', 256, { acquisition: true }),
  visitText('click_id', 32, { queried: false }),
  visitText('country', 2, {
    labels: 'country',
    importSchema: z
      .string()
      .regex(/^([A-Za-z]{2})?$/, 'country must be an ISO 3166-1 alpha-2 code')
      .nullish()
      .transform((v) => (v ?? '').toUpperCase()),
  }),
  visitText('region', 7, {
    labels: 'region',
    importSchema: z
      .string()
      .regex(/^([A-Za-z]{2}-[A-Za-z0-9]{1,3})?$/, 'region must be an ISO 3166-2 code such as DE-BE')
      .nullish()
      .transform((v) => (v ?? '').toUpperCase()),
  }),
  {
    name: 'city',
    ts: 'number',
    clickhouse: 'UInt32',
    empty: 0,
    emptyLabel: NOT_SET,
    queried: true,
    labels: 'city',
    importSchema: z
      .number()
      .int()
      .min(0)
      .max(4_294_967_295)
      .nullish()
      .transform((v) => v ?? 0),
  },
  visitText('browser', 64),
  visitText('browser_version', 32),
  visitText('os', 64),
  visitText('os_version', 32),
  visitText('device', 32),
  visitText('screen', 16, { importSchema: importScreen }),
] as const satisfies readonly SessionAttributeSpec[];

export type SessionAttributeColumn = (typeof SESSION_ATTRIBUTES)[number]['name'];
type SpecOf<K extends SessionAttributeColumn> = Extract<(typeof SESSION_ATTRIBUTES)[number], { name: K }>;

/** A visit's attributes, as every events and sessions row carries them. */
export type SessionAttributes = { [K in SessionAttributeColumn]: SpecOf<K>['ts'] extends 'number' ? number : string };

/** The attribute columns, in catalogue order. */
export const SESSION_ATTRIBUTE_COLUMNS: readonly SessionAttributeColumn[] = SESSION_ATTRIBUTES.map((a) => a.name);

/** Every attribute at its empty value (a fresh object each call). */
export function emptySessionAttributes(): SessionAttributes {
  return Object.fromEntries(SESSION_ATTRIBUTES.map((a) => [a.name, a.empty])) as SessionAttributes;
}

/** The catalogue entry of a column name, if it is a visit attribute. */
export function sessionAttribute(name: string): SessionAttributeSpec | undefined {
  return (SESSION_ATTRIBUTES as readonly SessionAttributeSpec[]).find((a) => a.name === name);
}
