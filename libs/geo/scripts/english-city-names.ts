// City labels in DB-IP's English where GeoNames' name is a local one: DB-IP writes
// "Geneva", "Nuremberg", "Cologne", "Heraklion" for GeoNames' "Genève", "Nürnberg",
// "Köln", "Irákleion". A city takes the name DB-IP gives most of the addresses matched
// to it only when GeoNames itself lists that name for the same place (an alternate name
// of the same id), so a district's or a neighbour's name never becomes a city's label;
// a name that differs only in accents or punctuation keeps GeoNames' spelling.
import { bareCityKey, cityNameKey, nameKey } from '../src/name-key.js';

export interface MatchedRecord {
  /** DB-IP's city name. */
  city: string;
  /** The GeoNames id it was matched to (0: none). */
  cityId: number;
  /** IPv4 addresses of the record. */
  v4: number;
}

/**
 * The same name but for accents, case, kind words or punctuation: GeoNames' spelling stays
 * (DB-IP's ASCII drops apostrophes: "Laudun-lArdoise" for "Laudun-l'Ardoise").
 */
function sameLetters(a: string, b: string): boolean {
  return bareCityKey(a).replaceAll(' ', '') === bareCityKey(b).replaceAll(' ', '');
}

/** GeoNames id → DB-IP's name, for the cities whose label changes. */
export function englishCityNames(
  records: MatchedRecord[],
  geoNamesName: (id: number) => string | undefined,
  alternateNames: Map<number, Set<string>>,
): Map<number, string> {
  const tally = new Map<number, Map<string, number>>();
  for (const record of records) {
    if (!record.cityId) continue;
    // DB-IP's parenthesised district aside: "Cologne (Innenstadt, Cologne)"
    const name = record.city.replace(/\s*\(.*\)\s*$/, '');
    const names = tally.get(record.cityId) ?? new Map<string, number>();
    names.set(name, (names.get(name) ?? 0) + record.v4 + 1);
    tally.set(record.cityId, names);
  }
  const labels = new Map<number, string>();
  for (const [id, names] of tally) {
    const [dbipName] = [...names].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
    const ours = geoNamesName(id);
    if (!ours || dbipName.length < 3 || sameLetters(ours, dbipName)) continue;
    const alternates = alternateNames.get(id);
    if (alternates?.has(nameKey(dbipName)) || alternates?.has(cityNameKey(dbipName))) labels.set(id, dbipName);
  }
  return labels;
}
