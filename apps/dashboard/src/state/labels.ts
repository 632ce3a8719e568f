import type { FilterField } from './url-state.js';

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
