// The generated geo data, read once per process on first use and indexed for the
// lookups in geo-labels.ts, geo-names.ts and geo-lookup.ts. Immutable, so sharing it is safe.
//
// Its two large parts, the cities and DB-IP's city keys (about 170,000 each), are held
// packed (typed arrays and UTF-8 bytes, outside the JS heap) rather than as the parsed
// JSON's arrays and objects, which took several times the space for the life of the
// process (issue 29: idle memory). The small parts stay as parsed.
import { nameKey, regionNameKey } from './name-key.js';
import { readGeoDataFile, recordCityKey, type GeoDataCity, type GeoDataCityPoint, type GeoDataFile } from './geo-data-file.js';
import { PackedKeys } from './packed-keys.js';

/** The file without its two large parts. */
export type GeoDataTables = Omit<GeoDataFile, 'cities' | 'recordCities'>;

export interface GeoData {
  file: GeoDataTables;
  countryByName: Map<string, string>;
  /** `country \t nameKey` and `country \t regionNameKey` → ISO 3166-2 code. */
  regionByName: Map<string, string>;
  /** DB-IP's (country, state1, city) → GeoNames id, or the points of the cities it may be. */
  recordCity(country: string, state: string, city: string): number | GeoDataCityPoint[] | undefined;
  /** GeoNames id → label. */
  cityName(id: number): string | undefined;
  /** Cities whose label or GeoNames name has this `nameKey` in `country`, most populous first. */
  citiesNamed(country: string, key: string): GeoDataCity[];
}

let loaded: GeoData | undefined;

function addOnce(map: Map<string, string>, key: string, value: string): void {
  if (!map.has(key)) map.set(key, value);
}

/** Strings packed as UTF-8 in one Buffer: string i is bytes[offsets[i], offsets[i + 1]). */
class PackedStrings {
  readonly #bytes: Buffer;
  readonly #offsets: Uint32Array;

  constructor(strings: readonly string[]) {
    const encoded = strings.map((s) => Buffer.from(s, 'utf8'));
    this.#offsets = new Uint32Array(strings.length + 1);
    for (let i = 0; i < encoded.length; i += 1) this.#offsets[i + 1] = this.#offsets[i]! + encoded[i]!.length;
    this.#bytes = Buffer.concat(encoded);
  }

  at(i: number): string {
    return this.#bytes.toString('utf8', this.#offsets[i]!, this.#offsets[i + 1]!);
  }
}

/** A column of few distinct strings: each row an index into the distinct ones. */
class StringColumn {
  readonly #distinct: string[] = [];
  readonly #rows: Uint32Array;

  constructor(values: readonly string[]) {
    const index = new Map<string, number>();
    this.#rows = new Uint32Array(values.length);
    values.forEach((value, row) => {
      let i = index.get(value);
      if (i === undefined) {
        i = this.#distinct.push(value) - 1;
        index.set(value, i);
      }
      this.#rows[row] = i;
    });
  }

  at(row: number): string {
    return this.#distinct[this.#rows[row]!]!;
  }
}

/** The GeoNames cities in the file's order (most populous first), packed. */
class CityTable {
  readonly #ids: Int32Array;
  readonly #names: PackedStrings;
  readonly #countries: StringColumn;
  readonly #regions: StringColumn;
  /** GeoNames' own name where the label is another (a few thousand) */
  readonly #localNames = new Map<number, string>();
  /** ids ascending, and the row of each */
  readonly #sortedIds: Int32Array;
  readonly #rowOfSorted: Uint32Array;
  #byName: PackedKeys | undefined;

  constructor(cities: readonly GeoDataCity[]) {
    this.#ids = Int32Array.from(cities, (city) => city[0]);
    this.#names = new PackedStrings(cities.map((city) => city[1]));
    this.#countries = new StringColumn(cities.map((city) => city[2]));
    this.#regions = new StringColumn(cities.map((city) => city[3]));
    cities.forEach((city, row) => {
      if (city[4] !== undefined) this.#localNames.set(row, city[4]);
    });
    this.#rowOfSorted = Uint32Array.from(cities.keys()).sort((a, b) => this.#ids[a]! - this.#ids[b]!);
    this.#sortedIds = Int32Array.from(this.#rowOfSorted, (row) => this.#ids[row]!);
  }

  row(id: number): number {
    let low = 0;
    let high = this.#sortedIds.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#sortedIds[mid]! < id) low = mid + 1;
      else high = mid;
    }
    return this.#sortedIds[low] === id ? this.#rowOfSorted[low]! : -1;
  }

  name(row: number): string {
    return this.#names.at(row);
  }

  city(row: number): GeoDataCity {
    const local = this.#localNames.get(row);
    const city: GeoDataCity = [this.#ids[row]!, this.#names.at(row), this.#countries.at(row), this.#regions.at(row)];
    if (local !== undefined) city.push(local);
    return city;
  }

  /** Built on first use: only imports of names (GA4) look cities up by name. */
  named(country: string, key: string): GeoDataCity[] {
    this.#byName ??= this.#nameIndex();
    return this.#byName.getAll(`${country}\t${key}`).map((row) => this.city(row));
  }

  #nameIndex(): PackedKeys {
    const entries: Array<[string, number]> = [];
    for (let row = 0; row < this.#ids.length; row += 1) {
      const label = this.#names.at(row);
      // the English label and GeoNames' local name ("Geneva", "Genève") both find the city
      for (const name of new Set([label, this.#localNames.get(row) ?? label])) entries.push([`${this.#countries.at(row)}\t${nameKey(name)}`, row]);
    }
    return new PackedKeys(entries);
  }
}

function index(file: GeoDataFile): GeoData {
  const { cities, recordCities, ...tables } = file;
  const countryByName = new Map<string, string>();
  for (const [code, name] of Object.entries(tables.countries)) {
    addOnce(countryByName, nameKey(name), code);
    addOnce(countryByName, nameKey(code), code);
  }
  for (const [name, code] of Object.entries(tables.countryAliases)) addOnce(countryByName, nameKey(name), code);

  const regionByName = new Map<string, string>();
  // DB-IP's English names first (they are what GA4 shows too), then CLDR's English and ISO's local names.
  for (const [key, code] of Object.entries(tables.stateRegions)) {
    const [country, state] = key.split('\t') as [string, string];
    addOnce(regionByName, `${country}\t${nameKey(state)}`, code);
  }
  for (const names of [tables.regions, tables.regionLocalNames]) {
    for (const [code, name] of Object.entries(names)) {
      const country = code.slice(0, 2);
      addOnce(regionByName, `${country}\t${nameKey(name)}`, code);
      addOnce(regionByName, `${country}\t${nameKey(code)}`, code);
    }
  }
  for (const [key, code] of Object.entries(tables.stateRegions)) {
    const [country, state] = key.split('\t') as [string, string];
    addOnce(regionByName, `${country}\t${regionNameKey(state)}`, code);
  }

  // an ambiguous key's value is -(1 + its index in `ambiguous`); GeoNames ids are positive
  const ambiguous: GeoDataCityPoint[][] = [];
  const records = new PackedKeys(
    Object.entries(recordCities).map(([key, match]) => [key, typeof match === 'number' ? match : -ambiguous.push(match)] as const),
  );
  const cityTable = new CityTable(cities);
  return {
    file: tables,
    countryByName,
    regionByName,
    recordCity(country, state, city) {
      const match = records.get(recordCityKey(country, state, city));
      return match === undefined || match >= 0 ? match : ambiguous[-match - 1];
    },
    cityName(id) {
      const row = cityTable.row(id);
      return row < 0 ? undefined : cityTable.name(row);
    },
    citiesNamed: (country, key) => cityTable.named(country, key),
  };
}

export function geoData(): GeoData {
  loaded ??= index(readGeoDataFile());
  return loaded;
}
