// DB-IP city → GeoNames id: same country, same name (accents and case folded; a
// parenthesised district dropped as a second try), nearest coordinates, at most
// NAME_MATCH_KM away. Failing that, a GeoNames city of any name within
// COORDINATES_ONLY_KM: DB-IP writes exonyms ("Nuremberg", "Cologne") where GeoNames
// keeps local names ("Nürnberg", "Köln"), at the same coordinates. A wider
// nearest-neighbour guess would put a suburb's visitors into the next town.
import { cityNameKey, nameKey } from '../src/name-key.js';
import type { GeoNamesCity } from './build-inputs.js';
import { distanceKm } from './distance.js';

const NAME_MATCH_KM = 60;
const COORDINATES_ONLY_KM = 2;
/** Grid cell size in degrees for the coordinates-only search (0.1° ≈ 11 km, far above 2 km). */
const CELL = 0.1;

export interface CityIndex {
  byName: Map<string, GeoNamesCity[]>;
  byCell: Map<string, GeoNamesCity[]>;
}

export type CityMatchMethod = 'name' | 'coordinates';

const cellKey = (country: string, lat: number, lon: number) =>
  `${country}\t${Math.floor(lat / CELL)}\t${Math.floor(lon / CELL)}`;

function push(map: Map<string, GeoNamesCity[]>, key: string, city: GeoNamesCity): void {
  const list = map.get(key);
  if (list) list.push(city);
  else map.set(key, [city]);
}

export function indexCities(cities: GeoNamesCity[]): CityIndex {
  const index: CityIndex = { byName: new Map(), byCell: new Map() };
  for (const city of cities) {
    push(index.byName, `${city.country}\t${nameKey(city.name)}`, city);
    push(index.byCell, cellKey(city.country, city.latitude, city.longitude), city);
  }
  return index;
}

function nearest(candidates: GeoNamesCity[], lat: number, lon: number, maxKm: number): GeoNamesCity | undefined {
  let best: GeoNamesCity | undefined;
  let bestKm = maxKm;
  for (const city of candidates) {
    const km = distanceKm(lat, lon, city.latitude, city.longitude);
    if (km <= bestKm) {
      best = city;
      bestKm = km;
    }
  }
  return best;
}

function neighbourhood(index: CityIndex, country: string, lat: number, lon: number): GeoNamesCity[] {
  const cells: GeoNamesCity[] = [];
  for (const dLat of [-CELL, 0, CELL]) {
    for (const dLon of [-CELL, 0, CELL]) cells.push(...(index.byCell.get(cellKey(country, lat + dLat, lon + dLon)) ?? []));
  }
  return cells;
}

export function matchCity(
  index: CityIndex,
  country: string,
  name: string,
  lat: number,
  lon: number,
): { city: GeoNamesCity; method: CityMatchMethod } | undefined {
  if (!name) return undefined;
  const named =
    nearest(index.byName.get(`${country}\t${nameKey(name)}`) ?? [], lat, lon, NAME_MATCH_KM) ??
    nearest(index.byName.get(`${country}\t${cityNameKey(name)}`) ?? [], lat, lon, NAME_MATCH_KM);
  if (named) return { city: named, method: 'name' };
  const near = nearest(neighbourhood(index, country, lat, lon), lat, lon, COORDINATES_ONLY_KM);
  return near ? { city: near, method: 'coordinates' } : undefined;
}
