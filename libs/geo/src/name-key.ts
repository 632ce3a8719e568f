// One normalisation for every place-name comparison, at build time (matching DB-IP
// names to ISO 3166-2 and GeoNames) and at run time (GA4 import names to codes), so
// both sides agree: accents folded, case folded, punctuation collapsed to spaces.

/** Letters Unicode does not decompose into a base letter and a mark, as DB-IP's ASCII names write them. */
const UNDECOMPOSED: Record<string, string> = {
  ß: 'ss',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
};

/** `"Thüringen"` → `"thuringen"`, `"Val-d'Oise"` → `"val d oise"`, `"Łódź"` → `"lodz"`. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßøæœłđðþıħ]/g, (letter) => UNDECOMPOSED[letter]!)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Words that name the kind of subdivision rather than the place ("State of Berlin", "Moscow Oblast"). */
const SUBDIVISION_WORDS = new Set([
  'state',
  'of',
  'the',
  'province',
  'provincia',
  'region',
  'oblast',
  'oblast’',
  'krai',
  'kray',
  'kraj',
  'republic',
  'respublika',
  'division',
  'county',
  'prefecture',
  'department',
  'departement',
  'governorate',
  'district',
  'voivodeship',
  'municipality',
  'city',
  'metropolitan',
  'autonomous',
  'community',
  'canton',
  'land',
  'region de',
  'de',
  'del',
  'la',
  'do',
  'special',
  'capital',
  'territory',
  'federal',
  'atoll',
  'parish',
  'zupanija',
  // Maltese articles DB-IP writes before a council's name ("Il-Kalkara", "Hal Ghaxaq"; ISO: "Kalkara")
  'il',
  'l',
  'ix',
  'iz',
  'in',
  'is',
  'ir',
  'it',
  'tal',
  'tas',
  'tax',
  'haz',
  'hal',
]);

/** nameKey without subdivision-kind words: `"State of Berlin"` → `"berlin"`. */
export function regionNameKey(name: string): string {
  const words = nameKey(name)
    .split(' ')
    .filter((word) => !SUBDIVISION_WORDS.has(word));
  return words.join(' ');
}

/** City names without a parenthesised district: `"Frankfurt am Main (Innenstadt I)"` → `"frankfurt am main"`. */
export function cityNameKey(name: string): string {
  return nameKey(name.replace(/\s*\(.*\)\s*$/, ''));
}

/** Words that name the kind of municipality, not the place: "Chiyoda City", "Chuncheon-si", "Mount Laurel Township". */
const CITY_KIND_WORDS = new Set(['city', 'township', 'town', 'village', 'si', 'shi', 'gun', 'ku']);

/**
 * cityNameKey without kind words at either end and with "St" read as "Saint":
 * `"Chiyoda City"` → `"chiyoda"`, `"Township of Bernards"` → `"bernards"`,
 * `"St. Cloud"` → `"saint cloud"`, GeoNames' `"New York City"` → `"new york"`.
 */
export function bareCityKey(name: string): string {
  const words = cityNameKey(name).split(' ');
  while (words.length > 1 && CITY_KIND_WORDS.has(words[words.length - 1]!)) words.pop();
  if (words.length > 2 && words[0] === 'township' && words[1] === 'of') words.splice(0, 2);
  if (words.length > 1 && words[0] === 'st') words[0] = 'saint';
  return words.join(' ');
}

/**
 * DB-IP's name without its own state's name appended ("Abbotsford British Columbia" in
 * British Columbia is Abbotsford); a name that is only the state's stays. Tried only when
 * the whole name names no GeoNames place ("New Delhi" in Delhi stays New Delhi).
 */
export function withoutStateName(name: string, state: string | undefined): string {
  if (!state) return name;
  const key = nameKey(name);
  const suffix = ` ${nameKey(state)}`;
  return key.endsWith(suffix) && key.length > suffix.length ? name.slice(0, name.length - state.length).replace(/[\s,]+$/, '') : name;
}
