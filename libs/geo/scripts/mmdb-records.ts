// Enumerates every distinct data record of a DB-IP city mmdb file with the share of
// address space that maps to it. The maxmind reader only answers point lookups, so we
// walk the search tree ourselves (format: https://maxmind.github.io/MaxMind-DB/) and let
// the reader decode each data pointer we reach.
import { readFile } from 'node:fs/promises';
import { Reader } from 'maxmind';

/** The fields DB-IP Lite city records carry (postcode, state2 and timezone are always empty). */
export interface DbipCityRecord {
  country_code: string;
  state1: string;
  city: string;
  latitude: number;
  longitude: number;
}

export interface WeightedRecord {
  record: DbipCityRecord;
  /** Number of addresses (IPv4) or /64 networks (IPv6) mapped to this record. */
  weight: number;
}

/** Reads one tree record (left or right half of a node) for 24, 28 or 32-bit record sizes. */
function treeRecord(db: Buffer, recordSize: number, node: number, right: boolean): number {
  if (recordSize === 24) {
    const offset = node * 6 + (right ? 3 : 0);
    return db.readUIntBE(offset, 3);
  }
  if (recordSize === 28) {
    const offset = node * 7;
    if (right) return ((db[offset + 3]! & 0x0f) << 24) + db.readUIntBE(offset + 4, 3);
    return ((db[offset + 3]! & 0xf0) << 20) + db.readUIntBE(offset, 3);
  }
  if (recordSize === 32) return db.readUInt32BE(node * 8 + (right ? 4 : 0));
  throw new Error(`unsupported mmdb record size ${recordSize}`);
}

/** Distinct records keyed by data pointer, with the address space behind each. */
export async function readWeightedRecords(path: string): Promise<WeightedRecord[]> {
  const db = await readFile(path);
  const reader = new Reader(db);
  // resolveDataPointer is public in mmdb-lib's JavaScript, only private in its typings.
  const decode = (pointer: number) => (reader as unknown as { resolveDataPointer(p: number): DbipCityRecord }).resolveDataPointer(pointer);
  const { nodeCount, recordSize, ipVersion } = reader.metadata;
  const bits = ipVersion === 4 ? 32 : 128;
  // IPv6 space is weighed in /64 networks, the usual size of one subscriber's allocation.
  const unitBits = ipVersion === 4 ? 0 : 64;
  const byPointer = new Map<number, WeightedRecord>();
  // Iterative depth-first walk: [node, depth] pairs.
  const stack: number[] = [0, 0];
  while (stack.length > 0) {
    const depth = stack.pop()!;
    const node = stack.pop()!;
    for (const right of [false, true]) {
      const value = treeRecord(db, recordSize, node, right);
      if (value < nodeCount) {
        stack.push(value, depth + 1);
      } else if (value > nodeCount) {
        const weight = 2 ** Math.max(0, bits - (depth + 1) - unitBits);
        const known = byPointer.get(value);
        if (known) known.weight += weight;
        else byPointer.set(value, { record: decode(value), weight });
      }
    }
  }
  return [...byPointer.values()];
}
