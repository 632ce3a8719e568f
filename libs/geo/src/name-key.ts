// One normalisation for every place-name comparison, at build time (matching DB-IP
// names to ISO 3166-2 and GeoNames) and at run time (GA4 import names to codes), so
// both sides agree: accents folded, case folded, punctuation collapsed to spaces.

/** `"Thüringen"` → `"thuringen"`, `"Val-d'Oise"` → `"val d oise"`. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Words that name the kind of subdivision rather than the place ("State of Berlin", "Moscow Oblast"). */
const SUBDIVISION_WORDS = new Set([
  'state', 'of', 'the', 'province', 'provincia', 'region', 'oblast', 'oblast’', 'krai', 'kray', 'kraj',
  'republic', 'respublika', 'division', 'county', 'prefecture', 'department', 'departement', 'governorate',
  'district', 'voivodeship', 'municipality', 'city', 'metropolitan', 'autonomous', 'community', 'canton',
  'land', 'region de', 'de', 'del', 'la', 'do', 'special', 'capital', 'territory', 'federal',
]);

/** nameKey without subdivision-kind words: `"State of Berlin"` → `"berlin"`. */
export function regionNameKey(name: string): string {
  const words = nameKey(name).split(' ').filter((word) => !SUBDIVISION_WORDS.has(word));
  return words.join(' ');
}

/** City names without a parenthesised district: `"Frankfurt am Main (Innenstadt I)"` → `"frankfurt am main"`. */
export function cityNameKey(name: string): string {
  return nameKey(name.replace(/\s*\(.*\)\s*$/, ''));
}
