// DB-IP city → GeoNames id: same country, same name (accents and case folded; a
// parenthesised district dropped as a second try), nearest coordinates, at most
// MAX_DISTANCE_KM away. No name match means no id: a nearest-neighbour guess would
// put a suburb's visitors into whichever town happens to be closest.
import { cityNameKey, nameKey } from '../src/name-key.js';
import type { GeoNamesCity } from './build-inputs.js';
import { distanceKm } from './distance.js';

const MAX_DISTANCE_KM = 60;

export type CityIndex = Map<string, GeoNamesCity[]>;

export function indexCities(cities: GeoNamesCity[]): CityIndex {
  const index: CityIndex = new Map();
  for (const city of cities) {
    const key = `${city.country}\t${nameKey(city.name)}`;
    const list = index.get(key);
    if (list) list.push(city);
    else index.set(key, [city]);
  }
  return index;
}

function nearest(candidates: GeoNamesCity[] | undefined, lat: number, lon: number): GeoNamesCity | undefined {
  let best: GeoNamesCity | undefined;
  let bestKm = MAX_DISTANCE_KM;
  for (const city of candidates ?? []) {
    const km = distanceKm(lat, lon, city.latitude, city.longitude);
    if (km <= bestKm) {
      best = city;
      bestKm = km;
    }
  }
  return best;
}

export function matchCity(index: CityIndex, country: string, name: string, lat: number, lon: number): GeoNamesCity | undefined {
  if (!name) return undefined;
  return (
    nearest(index.get(`${country}\t${nameKey(name)}`), lat, lon) ??
    nearest(index.get(`${country}\t${cityNameKey(name)}`), lat, lon)
  );
}
