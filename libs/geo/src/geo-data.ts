// The generated geo data, read once per process on first use and indexed for the
// lookups in geo-labels.ts and geo-names.ts. Immutable, so sharing it is safe.
import { nameKey, regionNameKey } from './name-key.js';
import { readGeoDataFile, type GeoDataCity, type GeoDataFile } from './geo-data-file.js';

export interface GeoData {
  file: GeoDataFile;
  countryByName: Map<string, string>;
  /** `country \t nameKey` and `country \t regionNameKey` → ISO 3166-2 code. */
  regionByName: Map<string, string>;
  cityById: Map<number, GeoDataCity>;
  /** `country \t nameKey` → cities, most populous first. */
  citiesByName: Map<string, GeoDataCity[]>;
}

let loaded: GeoData | undefined;

function addOnce(map: Map<string, string>, key: string, value: string): void {
  if (!map.has(key)) map.set(key, value);
}

function index(file: GeoDataFile): GeoData {
  const countryByName = new Map<string, string>();
  for (const [code, name] of Object.entries(file.countries)) {
    addOnce(countryByName, nameKey(name), code);
    addOnce(countryByName, nameKey(code), code);
  }
  for (const [name, code] of Object.entries(file.countryAliases)) addOnce(countryByName, nameKey(name), code);

  const regionByName = new Map<string, string>();
  // DB-IP's English names first (they are what GA4 shows too), then CLDR's English and ISO's local names.
  for (const [key, code] of Object.entries(file.stateRegions)) {
    const [country, state] = key.split('\t') as [string, string];
    addOnce(regionByName, `${country}\t${nameKey(state)}`, code);
  }
  for (const names of [file.regions, file.regionLocalNames]) {
    for (const [code, name] of Object.entries(names)) {
      const country = code.slice(0, 2);
      addOnce(regionByName, `${country}\t${nameKey(name)}`, code);
      addOnce(regionByName, `${country}\t${nameKey(code)}`, code);
    }
  }
  for (const [key, code] of Object.entries(file.stateRegions)) {
    const [country, state] = key.split('\t') as [string, string];
    addOnce(regionByName, `${country}\t${regionNameKey(state)}`, code);
  }

  const cityById = new Map<number, GeoDataCity>();
  const citiesByName = new Map<string, GeoDataCity[]>();
  for (const city of file.cities) {
    cityById.set(city[0], city);
    // the English label and GeoNames' local name ("Geneva", "Genève") both find the city
    for (const name of new Set([city[1], city[4] ?? city[1]])) {
      const key = `${city[2]}\t${nameKey(name)}`;
      const list = citiesByName.get(key);
      if (list) list.push(city);
      else citiesByName.set(key, [city]);
    }
  }
  return { file, countryByName, regionByName, cityById, citiesByName };
}

export function geoData(): GeoData {
  loaded ??= index(readGeoDataFile());
  return loaded;
}
