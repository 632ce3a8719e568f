import { FIELD_LABELS, OPERATOR_LABELS } from '../catalogue.js';
import type { Filter, FilterField } from './url-state.js';

/**
 * Readable names of geo codes the page has seen in API rows (`labels`), so a chip
 * says "Country is Germany" rather than "DE". Codes not seen yet show as codes.
 */
const seen = new Map<string, string>();
const GEO = new Set<FilterField>(['country', 'region', 'city']);

export function rememberLabel(field: FilterField, value: string, label: string | undefined): void {
  if (label && GEO.has(field) && seen.size < 5000) seen.set(`${field}\u0000${value}`, label);
}

let regionNames: Intl.DisplayNames | undefined;

export function filterLabel(field: FilterField, value: string): string {
  const known = seen.get(`${field}\u0000${value}`);
  if (known) return known;
  // a country code not seen in rows yet (a reloaded URL): the browser's own English name
  if (field === 'country' && /^[A-Z]{2}$/.test(value)) {
    try {
      regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
      return regionNames.of(value) ?? value;
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * A chip's text: "Country is Germany or France"; the negative operators exclude
 * every value (NOT IN), so they read "Country is not Germany nor France".
 */
export function describeFilter(filter: Filter): string {
  const joiner = filter.operator === 'is_not' || filter.operator === 'does_not_contain' ? ' nor ' : ' or ';
  return `${FIELD_LABELS[filter.field]} ${OPERATOR_LABELS[filter.operator]} ${filter.values.map((v) => filterLabel(filter.field, v)).join(joiner)}`;
}
