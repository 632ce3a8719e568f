/**
 * Column expressions shared by the dimension and filter-field catalogues: a
 * session attribute as users see it, with the empty value replaced by its label
 * (SEMANTICS "Empty values"), so a filter `source is "Direct / None"` matches the
 * rows the breakdown shows under that label. Every events row and every sessions
 * row carries these attribute columns under the same names.
 */
export const NOT_SET = '(not set)';
export const NO_PROPERTY = '(none)';

const labelled = (column: string, emptyLabel: string) => `if(${column} = '', '${emptyLabel}', ${column})`;

export const ATTRIBUTE_SQL = {
  source: labelled('source', 'Direct / None'),
  referrer: labelled('referrer', 'Direct / None'),
  channel: labelled('channel', 'Direct'),
  utm_source: labelled('utm_source', NOT_SET),
  utm_medium: labelled('utm_medium', NOT_SET),
  utm_campaign: labelled('utm_campaign', NOT_SET),
  utm_content: labelled('utm_content', NOT_SET),
  utm_term: labelled('utm_term', NOT_SET),
  country: labelled('country', NOT_SET),
  region: labelled('region', NOT_SET),
  city: `if(city = 0, '${NOT_SET}', toString(city))`,
  browser: labelled('browser', NOT_SET),
  browser_version: labelled('browser_version', NOT_SET),
  os: labelled('os', NOT_SET),
  os_version: labelled('os_version', NOT_SET),
  device: labelled('device', NOT_SET),
} as const;
export type AttributeField = keyof typeof ATTRIBUTE_SQL;

/** First path segment: `/blog/2026/x` → `/blog`, `/` → `/`. */
export const folderOf = (pathColumn: string) => `concat('/', splitByChar('/', ${pathColumn})[2])`;
