import { readCityPointsFile } from './city-points-file.js';

/** A city's point, two decimals (GeoNames, CC BY 4.0). */
export interface CityPoint {
  lat: number;
  lon: number;
}

let points: Map<number, CityPoint> | undefined;

function load(): Map<number, CityPoint> {
  const file = readCityPointsFile();
  const map = new Map<number, CityPoint>();
  let id = 0;
  for (let i = 0; i < file.idDeltas.length; i++) {
    id += file.idDeltas[i]!;
    map.set(id, { lat: file.lat100[i]! / 100, lon: file.lon100[i]! / 100 });
  }
  return map;
}

/** GeoNames id → its point (read once, on first use: ~165,000 cities), undefined for a city without one. */
export function cityPoint(id: number): CityPoint | undefined {
  points ??= load();
  return points.get(id);
}
