// A MaxMind DB (mmdb) reader whose search tree stays on disk: only its data section and
// metadata are held in memory. DB-IP's city files are 134 MB, 98 MB of them tree nodes
// that a lookup touches 32 (IPv4) or up to 128 (IPv6) of; read through a small block
// cache instead, they live in the kernel's page cache, shared and reclaimable, rather
// than in the process's resident memory. The data section (records, names) is decoded
// by mmdb-lib, maxmind's own decoder.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Metadata from 'mmdb-lib/lib/metadata.js';

const require = createRequire(import.meta.url);
// mmdb-lib has no exports map: its decoder and metadata parser are plain modules (pinned version)
/** mmdb-lib's data section decoder (what maxmind's Reader uses): pointers count from `baseOffset`. */
interface Decoder {
  decodeFast(offset: number): { value: unknown };
}
const { default: Decoder } = require('mmdb-lib/lib/decoder') as { default: new (db: Buffer, baseOffset?: number) => Decoder };
const { parseMetadata } = require('mmdb-lib/lib/metadata') as typeof Metadata;

const DATA_SECTION_SEPARATOR_BYTES = 16;
/** nodes per cached block: a node never straddles two blocks */
const NODES_PER_BLOCK = 585;
/** blocks kept per file (with 7-byte nodes about 4 MB): the top of the tree stays cached */
const MAX_CACHED_BLOCKS = 1_024;

/** An mmdb file's data section and metadata: what the reader holds in memory (shareable between threads). */
export interface MmdbFile {
  path: string;
  /** the bytes from the data section's start to the file's end (SharedArrayBuffer-backed when shared) */
  data: Uint8Array;
}

/** The bytes of `path` past its search tree (the tree's size is in the metadata at the file's end). */
export function readMmdbData(path: string, shared: boolean): MmdbFile {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    // the metadata sits within the file's last 128 KiB (the format's own bound)
    const tailSize = Math.min(size, 128 * 1024);
    const tail = Buffer.alloc(tailSize);
    readFully(fd, tail, size - tailSize, path);
    const { searchTreeSize } = parseMetadata(tail);
    const start = searchTreeSize + DATA_SECTION_SEPARATOR_BYTES;
    if (start > size) throw new Error(`${path}: its metadata's search tree (${searchTreeSize} bytes) is longer than the file`);
    const data = new Uint8Array(shared ? new SharedArrayBuffer(size - start) : new ArrayBuffer(size - start));
    readFully(fd, data, start, path);
    return { path, data };
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number, path: string): void {
  for (let at = 0; at < into.byteLength;) {
    const read = readSync(fd, into, at, into.byteLength - at, position + at);
    if (read === 0) throw new Error(`${path} ended at ${position + at} bytes`);
    at += read;
  }
}

/** Looks addresses up in one mmdb file; `close` releases its file descriptor. */
export class MmdbDiskReader {
  private readonly fd: number;
  private readonly decoder: Decoder;
  private readonly nodeCount: number;
  private readonly nodeBytes: number;
  private readonly recordSize: number;
  private readonly ipv4Start: number;
  private readonly blocks = new Map<number, Buffer>();
  private readonly data: Buffer;
  readonly ipVersion: number;

  constructor(file: MmdbFile) {
    this.data = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
    const metadata = parseMetadata(this.data);
    this.nodeCount = metadata.nodeCount;
    this.nodeBytes = metadata.nodeByteSize;
    this.recordSize = metadata.recordSize;
    this.ipVersion = metadata.ipVersion;
    // pointers in the data section count from its start
    this.decoder = new Decoder(this.data, 0);
    this.fd = openSync(file.path, 'r');
    try {
      const expected = metadata.searchTreeSize + DATA_SECTION_SEPARATOR_BYTES + this.data.byteLength;
      const size = fstatSync(this.fd).size;
      if (size !== expected) throw new Error(`${file.path} has ${size} bytes; its data section read earlier says ${expected}`);
      this.ipv4Start = this.findIpv4Start();
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
  }

  /**
   * The record of the network holding `address` (a bare IPv4 or IPv6 address, already
   * parsed): its offset in the data section, or -1 when the file has none. Records are
   * shared by many networks: the offset identifies one.
   */
  recordOffset(address: readonly number[]): number {
    const bits = address.length * 8;
    let node = address.length === 4 ? this.ipv4Start : 0;
    for (let depth = 0; depth < bits && node < this.nodeCount; depth++) {
      const bit = (address[depth >> 3]! >> (7 - (depth & 7))) & 1;
      node = this.child(node, bit);
    }
    // nodeCount itself means "no data"; above it, a pointer into the data section
    return node > this.nodeCount ? node - this.nodeCount - DATA_SECTION_SEPARATOR_BYTES : -1;
  }

  /** The record at `offset` (from `recordOffset`), as mmdb-lib decodes it. */
  record(offset: number): unknown {
    return this.decoder.decodeFast(offset).value;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** tree blocks held in memory (tests) */
  get cachedBlocks(): number {
    return this.blocks.size;
  }

  private child(node: number, bit: number): number {
    const block = Math.floor(node / NODES_PER_BLOCK);
    const bytes = this.block(block);
    const at = (node - block * NODES_PER_BLOCK) * this.nodeBytes;
    switch (this.recordSize) {
      case 24:
        return bit ? bytes.readUIntBE(at + 3, 3) : bytes.readUIntBE(at, 3);
      case 28:
        return bit ? ((bytes[at + 3]! & 0x0f) << 24) | bytes.readUIntBE(at + 4, 3) : ((bytes[at + 3]! & 0xf0) << 20) | bytes.readUIntBE(at, 3);
      default:
        return bit ? bytes.readUInt32BE(at + 4) : bytes.readUInt32BE(at);
    }
  }

  /** Block `index` of the tree, least recently used blocks dropped first. */
  private block(index: number): Buffer {
    let bytes = this.blocks.get(index);
    if (bytes) {
      // most recently used last: re-inserting moves it there
      this.blocks.delete(index);
      this.blocks.set(index, bytes);
      return bytes;
    }
    const first = index * NODES_PER_BLOCK;
    const nodes = Math.min(NODES_PER_BLOCK, this.nodeCount - first);
    bytes = Buffer.allocUnsafe(nodes * this.nodeBytes);
    readFully(this.fd, bytes, first * this.nodeBytes, 'mmdb search tree');
    if (this.blocks.size >= MAX_CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(index, bytes);
    return bytes;
  }

  /** Where IPv4 addresses start in an IPv6 tree (`::/96`); 0 in an IPv4 one. */
  private findIpv4Start(): number {
    if (this.ipVersion === 4) return 0;
    let node = 0;
    for (let i = 0; i < 96 && node < this.nodeCount; i++) node = this.child(node, 0);
    return node;
  }
}
