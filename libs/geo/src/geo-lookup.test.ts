import { beforeAll, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { geoLabels, openGeoLookup, readGeoDatabases, type GeoLookup } from './index.js';

// Expected values read by hand from the DB-IP Lite 2026-06 files (maxmind reader) and
// GeoNames (Mountain View 5375480, Frankfurt am Main 2925533, Nürnberg 2861650,
// Sydney 2147714, London 2643743).
describe('openGeoLookup', () => {
  let geo: GeoLookup;
  beforeAll(async () => {
    geo = await openGeoLookup();
  });

  it('locates a US IPv4 address: country, ISO 3166-2 region and GeoNames city', () => {
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', city: 5375480 });
  });

  it('locates a German ISP address in Hesse and maps a district-qualified city name to its city', () => {
    expect(geo.lookup('217.0.0.1')).toEqual({ country: 'DE', region: 'DE-HE', city: 2925533 });
    // DB-IP: "Frankfurt am Main (Innenstadt I)"
    expect(geo.lookup('84.128.1.1')).toEqual({ country: 'DE', region: 'DE-HE', city: 2925533 });
  });

  it('locates IPv6 (DB-IP "Nuremberg" is GeoNames "Nürnberg", matched by coordinates)', () => {
    expect(geo.lookup('2a01:4f8::1')).toEqual({ country: 'DE', region: 'DE-BY', city: 2861650 });
  });

  it("labels a city with DB-IP's English name where GeoNames lists it for that place", () => {
    // GeoNames' names are "Nürnberg", "Genève" and "Köln"; their alternate names hold DB-IP's
    expect(geoLabels.cityName(2861650)).toBe('Nuremberg');
    expect(geo.lookup('84.226.98.145')).toEqual({ country: 'CH', region: 'CH-GE', city: 2660646 });
    expect(geoLabels.cityName(2660646)).toBe('Geneva');
    // DB-IP "Cologne (Innenstadt, Cologne)": the district aside
    expect(geoLabels.cityName(geo.lookup('62.138.224.114').city)).toBe('Cologne');
    // a name DB-IP writes without accents keeps GeoNames' spelling
    expect(geoLabels.cityName(3448639)).toBe('São José do Rio Preto');
  });

  it('takes the city DB-IP names over a neighbourhood or town at its point', () => {
    // DB-IP "New York" at 40.783,-73.971: GeoNames calls it "New York City" (5128581); was Hell's Kitchen
    expect(geo.lookup('100.33.132.0')).toEqual({ country: 'US', region: 'US-NY', city: 5128581 });
    // DB-IP "Sao Jose do Rio Preto" sits at Birigui, 150 km off: the namesake in São Paulo state wins (3448639)
    expect(geo.lookup('191.202.192.0')).toEqual({ country: 'BR', region: 'BR-SP', city: 3448639 });
    expect(geoLabels.cityName(3448639)).toBe('São José do Rio Preto');
  });

  it('gives DB-IP states the ISO region they lie in, not a lookalike code', () => {
    // DB-IP "North Savo / Iisalmi": Pohjois-Savo FI-15 (GeoNames' Finnish admin1 numbers sent it to Pirkanmaa, FI-11)
    expect(geo.lookup('77.223.62.30').region).toBe('FI-15');
    // DB-IP "Provence / Marseille": Provence-Alpes-Côte d'Azur (was Seine-Saint-Denis, FR-93)
    expect(geo.lookup('90.60.186.180').region).toBe('FR-PAC');
    // DB-IP's pre-2016 "Rhone-Alpes / Lyon" and "Bourgogne": the regions they merged into (were FR-V, FR-D)
    expect(geo.lookup('176.185.106.90').region).toBe('FR-ARA');
    expect(geo.lookup('90.40.40.31').region).toBe('FR-BFC');
  });

  it('reads a DB-IP city name with its state appended as the city', () => {
    // DB-IP "British Columbia / Abbotsford British Columbia": GeoNames Abbotsford, BC (5881791); was no city
    expect(geo.lookup('70.69.152.193')).toEqual({ country: 'CA', region: 'CA-BC', city: 5881791 });
  });

  it("finds a city by one of GeoNames' alternate names, and labels it with DB-IP's", () => {
    // DB-IP "Petah Tikva" is GeoNames "Petaẖ Tiqva" (293918), which lists "Petah Tikva"; was Giv'at Shmuel by its point
    expect(geo.lookup('80.179.128.146')).toEqual({ country: 'IL', region: 'IL-M', city: 293918 });
    expect(geoLabels.cityName(293918)).toBe('Petah Tikva');
  });

  it('puts a district GeoNames does not list into the large city of its region it lies in', () => {
    // DB-IP "Sandton (Sandhurst)", a district of Johannesburg (993800) cities1000 does not list
    expect(geo.lookup('197.168.178.184')).toEqual({ country: 'ZA', region: 'ZA-GT', city: 993800 });
    expect(geoLabels.cityName(993800)).toBe('Johannesburg');
  });

  it('finds a place only GeoNames cities500 lists (Alvorada, RS: 211,000 people, not in cities1000)', () => {
    expect(geo.lookup('177.105.255.21')).toEqual({ country: 'BR', region: 'BR-RS', city: 12199880 });
    expect(geoLabels.cityName(12199880)).toBe('Alvorada');
  });

  it('names the Tokyo ward DB-IP names by its GeoNames ADM2 (cities1000 lists no wards)', () => {
    // DB-IP "Chiyoda City": was Tokyo (1850147), now the ward Chiyoda-ku (GeoNames 1864529)
    expect(geo.lookup('210.171.96.0')).toEqual({ country: 'JP', region: 'JP-13', city: 1864529 });
    expect(geoLabels.cityName(1864529)).toBe('Chiyoda-ku');
    // DB-IP "Minato", "Suginami-ku (Kamiogi)"
    expect(geo.lookup('220.44.113.157')).toEqual({ country: 'JP', region: 'JP-13', city: 1857091 });
    expect(geoLabels.cityName(1857091)).toBe('Minato-ku');
    expect(geo.lookup('42.146.62.54')).toEqual({ country: 'JP', region: 'JP-13', city: 1851510 });
  });

  it('labels a Moroccan address with its 2015 region (DB-IP "Casablanca-Settat", ISO MA-06 since 2019)', () => {
    const location = geo.lookup('196.117.16.0');
    expect(location).toEqual({ country: 'MA', region: 'MA-06', city: 2553604 });
    expect(geoLabels.regionName(location.region)).toBe('Casablanca-Settat'); // was "Meknès-Tafilalet"
  });

  it('labels a Luxembourg address with its canton (ISO 3166-2 since 2015), not a district', () => {
    // DB-IP state "Luxembourg": iso-3166-2 1.0.0 lists only the three old districts
    const location = geo.lookup('136.173.25.175');
    expect(location).toEqual({ country: 'LU', region: 'LU-LU', city: 2960316 });
    expect(geoLabels.regionName(location.region)).toBe('Luxembourg');
  });

  it('answers a remembered address the same, also after the memo filled and started over', () => {
    const first = geo.lookup('217.0.0.1');
    expect(geo.lookup('217.0.0.1')).toBe(first);
    // more distinct addresses than the memo holds, private and public alike
    for (let i = 0; i < 12_000; i += 1) geo.lookup(i % 2 === 0 ? `10.0.${i >> 8}.${i & 255}` : `84.${128 + (i % 64)}.${(i >> 6) & 255}.1`);
    expect(geo.lookup('217.0.0.1')).toEqual({ country: 'DE', region: 'DE-HE', city: 2925533 });
    expect(geo.lookup('10.1.2.3')).toEqual({ country: '', region: '', city: 0 });
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', city: 5375480 });
  });

  it('reads IPv4-mapped IPv6 as IPv4', () => {
    expect(geo.lookup('::ffff:8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', city: 5375480 });
  });

  it('locates other countries', () => {
    expect(geo.lookup('1.1.1.1')).toEqual({ country: 'AU', region: 'AU-NSW', city: 2147714 });
    expect(geo.lookup('81.2.69.160')).toEqual({ country: 'GB', region: 'GB-ENG', city: 2643743 });
  });

  it.each([
    '192.168.1.1',
    '10.0.0.1',
    '172.16.5.4',
    '127.0.0.1',
    '100.64.0.1',
    '169.254.1.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '::ffff:192.168.1.1',
    '',
    'not-an-ip',
    '8.8.8',
    '8.8.8.8.8',
    '0x8.8.8.8',
    '256.1.1.1',
    '8.8.8.8 ',
    '1'.repeat(100),
  ])('gives unknown for a non-public or invalid address %j', (ip) => {
    expect(geo.lookup(ip)).toEqual({ country: '', region: '', city: 0 });
  });
});

describe('readGeoDatabases: the data sections once in memory that threads share', () => {
  it('gives the lookups the files give, from SharedArrayBuffers a worker thread reads without a copy', async () => {
    const databases = await readGeoDatabases();
    expect(databases.ipv4.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(databases.ipv6.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    const shared = await openGeoLookup({ databases });
    const files = await openGeoLookup();
    for (const ip of ['8.8.8.8', '217.0.0.1', '2a01:4f8::1', '1.1.1.1', '81.2.69.160', '192.168.1.1']) expect(shared.lookup(ip)).toEqual(files.lookup(ip));
    // a thread that changes a byte changes it for everyone: the memory is shared, not copied
    const worker = new Worker(
      'require("node:worker_threads").parentPort.once("message", (bytes) => { bytes[0] ^= 0xff; require("node:worker_threads").parentPort.postMessage("done"); });',
      { eval: true },
    );
    const first = databases.ipv4.data[0]!;
    const done = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage(databases.ipv4.data);
    await done;
    await worker.terminate();
    expect(databases.ipv4.data[0]).toBe(first ^ 0xff);
  });
});

describe('public IPv4 fast path', () => {
  it('agrees with the edges of special blocks', async () => {
    const { publicIp } = await import('./public-ip.js');
    // Just outside / inside 172.16.0.0/12, 100.64.0.0/10, 198.18.0.0/15, 224.0.0.0/4.
    expect(publicIp('172.15.255.255')?.address).toBe('172.15.255.255');
    expect(publicIp('172.32.0.0')?.address).toBe('172.32.0.0');
    expect(publicIp('172.31.255.255')).toBeUndefined();
    expect(publicIp('100.63.255.255')?.family).toBe(4);
    expect(publicIp('100.127.255.255')).toBeUndefined();
    expect(publicIp('198.17.255.255')?.family).toBe(4);
    expect(publicIp('198.19.255.255')).toBeUndefined();
    expect(publicIp('223.255.255.255')?.family).toBe(4);
    expect(publicIp('239.0.0.1')).toBeUndefined();
  });
});
