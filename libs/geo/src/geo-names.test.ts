import { describe, expect, it } from 'vitest';
import { cityIdByName, countryCodeByName, regionCodeByName } from './index.js';

describe('names to codes', () => {
  it('finds countries by English, ISO-list and GA4 spellings, ignoring case and accents', () => {
    expect(countryCodeByName('Germany')).toBe('DE');
    expect(countryCodeByName('  germany ')).toBe('DE');
    expect(countryCodeByName('Czechia')).toBe('CZ');
    expect(countryCodeByName('Czech Republic')).toBe('CZ');
    expect(countryCodeByName('Türkiye')).toBe('TR');
    expect(countryCodeByName('South Korea')).toBe('KR');
    expect(countryCodeByName('Korea, Republic of')).toBe('KR');
    expect(countryCodeByName('United States')).toBe('US');
  });

  it('finds regions by English (DB-IP, CLDR) and local (ISO) names', () => {
    expect(regionCodeByName('NL', 'Noord-Holland')).toBe('NL-NH');
    expect(regionCodeByName('NL', 'North Holland')).toBe('NL-NH');
    expect(regionCodeByName('AT', 'Wien')).toBe('AT-9');
    expect(regionCodeByName('MA', 'Casablanca-Settat')).toBe('MA-06');
    expect(regionCodeByName('DE', 'Bavaria')).toBe('DE-BY');
    expect(regionCodeByName('DE', 'Bayern')).toBe('DE-BY');
    expect(regionCodeByName('DE', 'Berlin')).toBe('DE-BE');
    expect(regionCodeByName('DE', 'Thüringen')).toBe('DE-TH');
    expect(regionCodeByName('US', 'california')).toBe('US-CA');
    expect(regionCodeByName('GB', 'England')).toBe('GB-ENG');
    expect(regionCodeByName('FR', 'Île-de-France')).toBe('FR-IDF');
  });

  it("finds regions by DB-IP's names that no automatic rule maps right (hand-checked aliases)", () => {
    // the kraj, not the district of its seat (CZ-532 Pardubice)
    expect(regionCodeByName('CZ', 'Pardubice Region')).toBe('CZ-PA');
    expect(regionCodeByName('CZ', 'Plzen Region')).toBe('CZ-PL');
    // Uusimaa (Swedish Nyland) means "new land"; was Åland (FI-01)
    expect(regionCodeByName('FI', 'Newland')).toBe('FI-18');
    expect(regionCodeByName('EG', 'Beni Suweif')).toBe('EG-BNS');
    expect(regionCodeByName('CL', "O'Higgins Region")).toBe('CL-LI');
    expect(regionCodeByName('UA', 'Odesa')).toBe('UA-51');
    expect(regionCodeByName('QA', 'Baladiyat ad Dawhah')).toBe('QA-DA');
    // GeoNames numbers Croatia's counties otherwise than ISO: was Međimurje (HR-20) by the admin1 rule
    expect(regionCodeByName('HR', 'Krapinsko-Zagorska')).toBe('HR-02');
    // Maltese articles are kind words: ISO's "Kalkara" (was Marsa, MT-26, by the admin1 rule)
    expect(regionCodeByName('MT', 'Il-Kalkara')).toBe('MT-21');
    expect(regionCodeByName('MT', 'Iz-Zebbug')).toBe('MT-65');
    expect(regionCodeByName('JM', 'St. Andrew')).toBe('JM-02');
    expect(regionCodeByName('TO', 'Vavau')).toBe('TO-05');
    // "Parish" is a kind word like "Province": Grenada's GD-01
    expect(regionCodeByName('GD', 'Saint Andrew Parish')).toBe('GD-01');
  });

  it('finds cities; the region picks among namesakes, else the most populous wins', () => {
    expect(cityIdByName('DE', 'Berlin')).toBe(2950159);
    // GeoNames US "Berlin"s: NH 9367 people (5083330), NJ 7590, WI 5420 (5245497), MD, MA, PA smaller.
    expect(cityIdByName('US', 'Berlin')).toBe(5083330);
    expect(cityIdByName('US', 'Berlin', 'US-WI')).toBe(5245497);
    expect(cityIdByName('DE', 'Frankfurt am Main', 'DE-HE')).toBe(2925533);
    // labelled "Nuremberg" (DB-IP's English), still found by GeoNames' "Nürnberg"
    expect(cityIdByName('DE', 'Nuremberg')).toBe(2861650);
    expect(cityIdByName('DE', 'Nürnberg')).toBe(2861650);
  });

  it('gives undefined for unknown or unusable names', () => {
    expect(countryCodeByName('Atlantis')).toBeUndefined();
    expect(countryCodeByName('')).toBeUndefined();
    expect(countryCodeByName('x'.repeat(500))).toBeUndefined();
    expect(regionCodeByName('DE', 'California')).toBeUndefined();
    expect(regionCodeByName('ZZ', 'Bavaria')).toBeUndefined();
    expect(cityIdByName('DE', 'Mountain View')).toBeUndefined();
    expect(cityIdByName('US', 'Berlin', 'US-CA')).toBeUndefined();
    expect(cityIdByName('DE', '---')).toBeUndefined();
  });
});
