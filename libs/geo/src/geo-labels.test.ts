import { describe, expect, it } from 'vitest';
import { geoLabels } from './index.js';

describe('geoLabels', () => {
  it('names countries, ISO 3166-2 regions and GeoNames cities', () => {
    expect(geoLabels.countryName('DE')).toBe('Germany');
    expect(geoLabels.countryName('KR')).toBe('South Korea');
    expect(geoLabels.regionName('DE-BE')).toBe('Berlin');
    expect(geoLabels.regionName('DE-BY')).toBe('Bayern');
    expect(geoLabels.regionName('US-CA')).toBe('California');
    // France's 2016 regions are newer than iso-3166-2 1.0.0 and come from region-aliases.ts.
    expect(geoLabels.regionName('FR-IDF')).toBe('Île-de-France');
    expect(geoLabels.cityName(2950159)).toBe('Berlin');
  });

  it('gives undefined for unknown codes', () => {
    expect(geoLabels.countryName('ZZ')).toBeUndefined();
    expect(geoLabels.countryName('')).toBeUndefined();
    expect(geoLabels.regionName('DE-XX')).toBeUndefined();
    expect(geoLabels.cityName(0)).toBeUndefined();
    expect(geoLabels.cityName(-1)).toBeUndefined();
  });
});
