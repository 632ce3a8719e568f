/**
 * String keys → int32 values, packed: every key's UTF-8 bytes in one Buffer, sorted
 * bytewise, with their offsets and values in typed arrays; a lookup is a binary search
 * that compares bytes in place. A key may repeat: its values stay in the order given.
 *
 * For large, never-changing maps (the geo mapping's DB-IP city keys): a plain object or
 * Map holds a heap string and a hash slot per key, several times the bytes of the keys.
 */
export class PackedKeys {
  readonly size: number;
  readonly #bytes: Buffer;
  /** key i is #bytes[#offsets[i], #offsets[i + 1]) */
  readonly #offsets: Uint32Array;
  readonly #values: Int32Array;

  constructor(entries: ReadonlyArray<readonly [key: string, value: number]>) {
    const encoded = entries.map(([key]) => Buffer.from(key, 'utf8'));
    // stable: equal keys keep their given order
    const order = Array.from(entries.keys()).sort((a, b) => Buffer.compare(encoded[a]!, encoded[b]!) || a - b);
    this.size = entries.length;
    this.#offsets = new Uint32Array(this.size + 1);
    this.#values = new Int32Array(this.size);
    let length = 0;
    for (const [rank, i] of order.entries()) {
      this.#offsets[rank] = length;
      this.#values[rank] = entries[i]![1];
      length += encoded[i]!.length;
    }
    this.#offsets[this.size] = length;
    this.#bytes = Buffer.concat(
      order.map((i) => encoded[i]!),
      length,
    );
  }

  /** The first value of `key`, or undefined. */
  get(key: string): number | undefined {
    const rank = this.#first(Buffer.from(key, 'utf8'));
    return rank < 0 ? undefined : this.#values[rank];
  }

  /** Every value of `key`, in the order given; empty when none. */
  getAll(key: string): number[] {
    const target = Buffer.from(key, 'utf8');
    const found: number[] = [];
    for (let rank = this.#first(target); rank >= 0 && rank < this.size && this.#compare(target, rank) === 0; rank += 1) found.push(this.#values[rank]!);
    return found;
  }

  /** The lowest rank holding `target`, or -1. */
  #first(target: Buffer): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#compare(target, mid) > 0) low = mid + 1;
      else high = mid;
    }
    return low < this.size && this.#compare(target, low) === 0 ? low : -1;
  }

  /** target vs key `rank`: < 0, 0 or > 0 */
  #compare(target: Buffer, rank: number): number {
    return target.compare(this.#bytes, this.#offsets[rank]!, this.#offsets[rank + 1]!);
  }
}
