/**
 * Column expressions shared by the dimension and filter-field catalogues: a
 * session attribute as users see it, with the empty value replaced by its label
 * (SEMANTICS "Empty values"), so a filter `source is "Direct / None"` matches the
 * rows the breakdown shows under that label. Every events row and every sessions
 * row carries these attribute columns under the same names.
 */
export const NOT_SET = '(not set)';
export const NO_PROPERTY = '(none)';

/** Attribute columns whose empty value reads as a label, and the label. */
export const EMPTY_LABELS = {
  source: 'Direct / None',
  referrer: 'Direct / None',
  channel: 'Direct',
  utm_source: NOT_SET,
  utm_medium: NOT_SET,
  utm_campaign: NOT_SET,
  utm_content: NOT_SET,
  utm_term: NOT_SET,
  country: NOT_SET,
  region: NOT_SET,
  browser: NOT_SET,
  browser_version: NOT_SET,
  os: NOT_SET,
  os_version: NOT_SET,
  device: NOT_SET,
} as const;
export type LabelledField = keyof typeof EMPTY_LABELS;

const labelled = (column: LabelledField) => `if(${column} = '', '${EMPTY_LABELS[column]}', ${column})`;

export const ATTRIBUTE_SQL = {
  ...(Object.fromEntries(Object.keys(EMPTY_LABELS).map((field) => [field, labelled(field as LabelledField)])) as Record<LabelledField, string>),
  city: `if(city = 0, '${NOT_SET}', toString(city))`,
};
export type AttributeField = keyof typeof ATTRIBUTE_SQL;

/** First path segment: `/blog/2026/x` → `/blog`, `/` → `/`. */
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

export const folderOf = (pathColumn: string) => `concat('/', splitByChar('/', ${pathColumn})[2])`;
