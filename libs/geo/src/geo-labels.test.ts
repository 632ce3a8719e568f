import { describe, expect, it } from 'vitest';
import { geoLabels } from './index.js';

describe('geoLabels', () => {
  it('names countries, ISO 3166-2 regions and GeoNames cities', () => {
    expect(geoLabels.countryName('DE')).toBe('Germany');
    expect(geoLabels.countryName('KR')).toBe('South Korea');
    expect(geoLabels.regionName('DE-BE')).toBe('Berlin');
    expect(geoLabels.regionName('US-CA')).toBe('California');
    // France's 2016 regions are newer than iso-3166-2 1.0.0 and come from region-aliases.ts.
    expect(geoLabels.regionName('FR-BRE')).toBe('Brittany'); // ISO: Bretagne
    expect(geoLabels.cityName(2950159)).toBe('Berlin');
  });

  it('names regions in English (CLDR), not in the local language ISO 3166-2 uses', () => {
    expect(geoLabels.regionName('DE-BY')).toBe('Bavaria'); // ISO: Bayern
    expect(geoLabels.regionName('NL-NH')).toBe('North Holland'); // Noord-Holland
    expect(geoLabels.regionName('RU-MOW')).toBe('Moscow'); // Moskva
    expect(geoLabels.regionName('AT-9')).toBe('Vienna'); // Wien
    expect(geoLabels.regionName('ES-CN')).toBe('Canary Islands'); // Canarias
    expect(geoLabels.regionName('EG-C')).toBe('Cairo'); // Al Qāhirah
    expect(geoLabels.regionName('TH-10')).toBe('Bangkok'); // Krung Thep Maha Nakhon
    // a code ISO has replaced since iso-3166-2 1.0.0 (PL-MZ → PL-14) gets its successor's name
    expect(geoLabels.regionName('PL-MZ')).toBe('Mazovia');
    // ZA-NL became ZA-KZN in 2018 and CLDR names only the new code (ISO's local name: "GaZulu-Natala")
    expect(geoLabels.regionName('ZA-NL')).toBe('KwaZulu-Natal');
    // Morocco's 2015 regions: ISO's MA-06 is Casablanca-Settat since 2019 (iso-3166-2 1.0.0 and CLDR: Meknès-Tafilalet)
    expect(geoLabels.regionName('MA-06')).toBe('Casablanca-Settat');
    // CLDR's superscript that tells two equal names apart is not part of the label
    expect(geoLabels.regionName('FR-IDF')).toBe('Île-de-France');
  });

  it('gives undefined for unknown codes', () => {
    expect(geoLabels.countryName('ZZ')).toBeUndefined();
    expect(geoLabels.countryName('')).toBeUndefined();
    expect(geoLabels.regionName('DE-XX')).toBeUndefined();
    expect(geoLabels.cityName(0)).toBeUndefined();
    expect(geoLabels.cityName(-1)).toBeUndefined();
  });
});
