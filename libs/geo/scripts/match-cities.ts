// DB-IP city → GeoNames id. DB-IP's name says which city; its coordinates are often a
// neighbourhood, or the ISP's site in a nearby town (DB-IP "São José do Rio Preto" sits
// at Birigui, 150 km off), so the name decides and the point only breaks ties:
//   1. same country, same name (accents and case folded; then a parenthesised district
//      dropped; then kind words such as "City", "-si", "Township" dropped), and in the
//      same ISO 3166-2 region as DB-IP's state: the most populous such place, sections of
//      a city (GeoNames PPLX, "Hell's Kitchen") last; then a municipality or ward of that
//      name in that region (GeoNames ADM2: Tokyo's "Chiyoda-ku" for DB-IP "Chiyoda City");
//   2. same name anywhere in the country, nearest within NAME_MATCH_KM (DB-IP's state
//      has no code, or GeoNames files the place under another admin1);
//   3. no name matches: one of GeoNames' alternate names (cities500) in DB-IP's region, or
//      the nearest within NAME_MATCH_KM ("Petah Tikva" for "Petaẖ Tiqva");
//   4. still no name matches: a GeoNames place of any name within COORDINATES_ONLY_KM, a city
//      before a section of one. DB-IP writes exonyms ("Nuremberg", "Cologne") where
//      GeoNames keeps local names ("Nürnberg", "Köln"), at the same coordinates. A wider
//      nearest-neighbour guess would put a suburb's visitors into the next town;
//   5. still nothing: the nearest city of at least CITY_POPULATION people in DB-IP's own
//      region within CITY_KM. DB-IP names districts GeoNames' cities1000 does not list
//      (Johannesburg's "Sandton", New Cairo, Seoul's dongs): they lie in that city. The
//      same region keeps a district out of the large city across a border.
import { bareCityKey, cityNameKey, nameKey, withoutStateName } from '../src/name-key.js';
import type { GeoNamesCity, GeoNamesDivision } from './build-inputs.js';
import { distanceKm } from './distance.js';

const NAME_MATCH_KM = 60;
const COORDINATES_ONLY_KM = 2;
const CITY_KM = 15;
const CITY_POPULATION = 1_000_000;
/** Grid cell size in degrees for the coordinates-only search (0.1° ≈ 11 km, far above 2 km). */
const CELL = 0.1;
/** GeoNames feature code of a section of a populated place (a neighbourhood). */
const SECTION = 'PPLX';

export interface CityIndex {
  /** `country \t key` → cities, for each of nameKey, cityNameKey and bareCityKey of the GeoNames name. */
  byName: Map<string, GeoNamesCity[]>;
  /** `country \t nameKey` of each GeoNames alternate name (cities500) → cities; step 3. */
  byAlternateName: Map<string, GeoNamesCity[]>;
  /** The same for municipalities and wards (they have no point, so only step 1 finds them). */
  divisionsByName: Map<string, GeoNamesDivision[]>;
  byCell: Map<string, GeoNamesCity[]>;
  /** country → its cities of at least CITY_POPULATION people. */
  largeCities: Map<string, GeoNamesCity[]>;
}

export type CityMatchMethod = 'region' | 'division' | 'name' | 'alternate' | 'coordinates' | 'district';

/** The ISO 3166-2 region of a GeoNames city or division ('' when not known). */
export type RegionOfCity = (place: { country: string; admin1: string }) => string;

const cellKey = (country: string, lat: number, lon: number) => `${country}\t${Math.floor(lat / CELL)}\t${Math.floor(lon / CELL)}`;

function push<T>(map: Map<string, T[]>, key: string, city: T): void {
  const list = map.get(key);
  if (!list) map.set(key, [city]);
  else if (!list.includes(city)) list.push(city);
}

/** The keys a name is tried under, most exact first. */
function nameKeys(name: string): string[] {
  return [...new Set([nameKey(name), cityNameKey(name), bareCityKey(name)])].filter((key) => key !== '');
}

/** Shorter alternate names are codes (IATA "IND") or abbreviations that name other places too. */
const MIN_ALTERNATE_KEY = 4;

export function indexCities(
  cities: GeoNamesCity[],
  divisions: GeoNamesDivision[] = [],
  alternateNames: ReadonlyMap<number, ReadonlySet<string>> = new Map(),
): CityIndex {
  const index: CityIndex = { byName: new Map(), byAlternateName: new Map(), divisionsByName: new Map(), byCell: new Map(), largeCities: new Map() };
  for (const division of divisions) {
    for (const key of nameKeys(division.name)) push(index.divisionsByName, `${division.country}\t${key}`, division);
  }
  for (const city of cities) {
    for (const key of nameKeys(city.name)) push(index.byName, `${city.country}\t${key}`, city);
    for (const key of alternateNames.get(city.id) ?? []) {
      if (key.length >= MIN_ALTERNATE_KEY) push(index.byAlternateName, `${city.country}\t${key}`, city);
    }
    push(index.byCell, cellKey(city.country, city.latitude, city.longitude), city);
    if (city.population >= CITY_POPULATION && city.featureCode !== SECTION) push(index.largeCities, city.country, city);
  }
  return index;
}

/** Sections of a city after whole places: a DB-IP name is a city's before a neighbourhood's. */
const sectionLast = (city: GeoNamesCity) => (city.featureCode === SECTION ? 1 : 0);

function nearest(candidates: GeoNamesCity[], lat: number, lon: number, maxKm: number): GeoNamesCity | undefined {
  let best: GeoNamesCity | undefined;
  let bestRank = [Infinity, maxKm];
  for (const city of candidates) {
    const km = distanceKm(lat, lon, city.latitude, city.longitude);
    if (km > maxKm) continue;
    const rank = [sectionLast(city), km];
    if (rank[0]! < bestRank[0]! || (rank[0] === bestRank[0] && rank[1]! <= bestRank[1]!)) {
      best = city;
      bestRank = rank;
    }
  }
  return best;
}

function mostPopulous(candidates: GeoNamesCity[]): GeoNamesCity | undefined {
  return [...candidates].sort((a, b) => sectionLast(a) - sectionLast(b) || b.population - a.population || a.id - b.id)[0];
}

function neighbourhood(index: CityIndex, country: string, lat: number, lon: number): GeoNamesCity[] {
  const cells: GeoNamesCity[] = [];
  for (const dLat of [-CELL, 0, CELL]) {
    for (const dLon of [-CELL, 0, CELL]) cells.push(...(index.byCell.get(cellKey(country, lat + dLat, lon + dLon)) ?? []));
  }
  return cells;
}

/**
 * `state`: DB-IP's state name; `region`: its ISO 3166-2 code ('' when unknown); `regionOf` gives a
 * GeoNames city's. Without them (the first pass, before regions are known) step 1 is skipped.
 */
export function matchCity(
  index: CityIndex,
  place: { country: string; name: string; latitude: number; longitude: number; state?: string; region?: string },
  regionOf?: RegionOfCity,
): { city: GeoNamesCity | GeoNamesDivision; method: CityMatchMethod } | undefined {
  const { country, name, latitude, longitude, region } = place;
  if (!name) return undefined;
  const lookUp = (keys: string[]) => keys.map((key) => index.byName.get(`${country}\t${key}`) ?? []);
  let keys = nameKeys(name);
  let named = lookUp(keys);
  if (named.every((candidates) => candidates.length === 0)) {
    keys = nameKeys(withoutStateName(name, place.state));
    named = lookUp(keys);
  }
  if (region && regionOf) {
    for (const candidates of named) {
      const inRegion = mostPopulous(candidates.filter((city) => regionOf(city) === region));
      if (inRegion) return { city: inRegion, method: 'region' };
    }
    for (const key of keys) {
      const divisions = (index.divisionsByName.get(`${country}\t${key}`) ?? []).filter((division) => regionOf(division) === region);
      // two wards of one name in one region would be a guess
      if (divisions.length === 1) return { city: divisions[0]!, method: 'division' };
    }
  }
  for (const candidates of named) {
    const near = nearest(candidates, latitude, longitude, NAME_MATCH_KM);
    if (near) return { city: near, method: 'name' };
  }
  // GeoNames' alternate names of a place: DB-IP "Petah Tikva" is GeoNames "Petaẖ Tiqva"
  const alternates = keys.map((key) => index.byAlternateName.get(`${country}\t${key}`) ?? []);
  for (const candidates of alternates) {
    const inRegion = region && regionOf ? mostPopulous(candidates.filter((city) => regionOf(city) === region)) : undefined;
    const city = inRegion ?? nearest(candidates, latitude, longitude, NAME_MATCH_KM);
    if (city) return { city, method: 'alternate' };
  }
  const near = nearest(neighbourhood(index, country, latitude, longitude), latitude, longitude, COORDINATES_ONLY_KM);
  if (near) return { city: near, method: 'coordinates' };
  if (!region || !regionOf) return undefined;
  const inRegion = (index.largeCities.get(country) ?? []).filter((city) => regionOf(city) === region);
  const city = nearest(inRegion, latitude, longitude, CITY_KM);
  return city ? { city, method: 'district' } : undefined;
}
