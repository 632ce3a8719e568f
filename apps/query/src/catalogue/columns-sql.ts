import { NOT_SET, SESSION_ATTRIBUTES, type SessionAttributeColumn, type SessionAttributeSpec } from '@sightline/events-schema';

/**
 * Column expressions shared by the dimension and filter-field catalogues: a
 * session attribute as users see it, with the empty value replaced by its label
 * (SEMANTICS "Empty values"), so a filter `source is "Direct / None"` matches the
 * rows the breakdown shows under that label. Every events row and every sessions
 * row carries these attribute columns under the same names.
 */
export const NO_PROPERTY = '(none)';
export { NOT_SET };

/** The session attributes users query (`visit:<name>`, filter field `<name>`): the catalogue's `queried` ones. */
export const QUERIED_ATTRIBUTES: readonly SessionAttributeSpec[] = (SESSION_ATTRIBUTES as readonly SessionAttributeSpec[]).filter((a) => a.queried);
export type AttributeField = SessionAttributeColumn;

/** Text attribute columns whose empty value reads as a label, and the label (numeric ones: see ATTRIBUTE_SQL). */
export const EMPTY_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  QUERIED_ATTRIBUTES.filter((a) => a.ts === 'string').map((a) => [a.name, a.emptyLabel]),
);

const labelled = (a: SessionAttributeSpec) =>
  a.ts === 'string' ? `if(${a.name} = '', '${a.emptyLabel}', ${a.name})` : `if(${a.name} = ${a.empty}, '${a.emptyLabel}', toString(${a.name}))`;

/** Each queried attribute as users see it: the empty value replaced by its label, numbers as text. */
export const ATTRIBUTE_SQL: Readonly<Record<string, string>> = Object.fromEntries(QUERIED_ATTRIBUTES.map((a) => [a.name, labelled(a)]));

/**
 * The stored values that `labelled(column)` maps into `values`: the empty value when
 * the label is among them, every value but the empty one (the labelled expression
 * never reads ''). `labelled(c) IN values` ⇔ `c IN storedValues(values, label)`, and a
 * filter on the bare column compares LowCardinality dictionary entries instead of
 * building a string per row.
 */
export function storedValues(values: readonly string[], emptyLabel: string): string[] {
  const stored = values.filter((v) => v !== '');
  if (values.includes(emptyLabel)) stored.push('');
  return stored;
}

/** First path segment: `/blog/2026/x` → `/blog`, `/` → `/`. */
export const folderOf = (pathColumn: string) => `concat('/', splitByChar('/', ${pathColumn})[2])`;
