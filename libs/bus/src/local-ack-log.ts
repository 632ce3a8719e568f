import { AppendOnlyFile, readLinesRepairingTail } from './append-only-file.js';

/** What a durable consumer remembers across restarts. */
export interface DurableProgress {
  /** The durable's settings as last given to consume(); filterSubject decides retention. */
  settings?: DurableSettings;
  /** Every seq <= floor is done (acked, given up, or not matching the filter). */
  floor: number;
  /** Done seqs above the floor (acks arrive out of order). */
  done: Set<number>;
  /** Deliveries so far of messages not yet done, so maxDeliver holds across restarts. */
  deliveries: Map<number, number>;
}

export interface DurableSettings {
  filterSubject?: string;
  ackWaitMs: number;
  maxDeliver: number;
  /** Per-durable max_ack_pending; unset: the bus's default. */
  maxAckPending?: number;
}

/**
 * Per-durable append-only progress log, one record per line:
 *
 *   C<TAB>{settings JSON}     settings given to consume()
 *   F<TAB><seq>               floor (written by compaction)
 *   A<TAB><seq>               acked
 *   T<TAB><seq>               given up after maxDeliver (done, not processed)
 *   D<TAB><seq> <seq> ...     each listed message was delivered once more
 *
 * Delivery records are what make maxDeliver survive a crash: a message that crashes
 * the whole process on every delivery is eventually given up instead of looping.
 */
export class DurableAckLog {
  private constructor(private readonly file: AppendOnlyFile) {}

  static open(filePath: string, fsync: boolean): { log: DurableAckLog; progress: DurableProgress; tornTailBytes: number } {
    const { lines, tornTailBytes } = readLinesRepairingTail(filePath);
    return { log: new DurableAckLog(new AppendOnlyFile(filePath, fsync)), progress: parseProgress(lines), tornTailBytes };
  }

  get sizeBytes(): number {
    return this.file.sizeBytes;
  }

  recordSettings(settings: DurableSettings): void {
    this.file.append(`C\t${JSON.stringify(settings)}\n`);
  }

  recordDone(seq: number, how: 'ack' | 'term'): void {
    this.file.append(`${how === 'ack' ? 'A' : 'T'}\t${seq}\n`);
  }

  recordDelivered(seqs: readonly number[]): void {
    if (seqs.length > 0) this.file.append(`D\t${seqs.join(' ')}\n`);
  }

  /** Atomically rewrites the log as a snapshot of `progress` (drops superseded records). */
  compact(progress: DurableProgress): void {
    const parts: string[] = [];
    if (progress.settings) parts.push(`C\t${JSON.stringify(progress.settings)}\n`);
    parts.push(`F\t${progress.floor}\n`);
    for (const seq of progress.done) if (seq > progress.floor) parts.push(`A\t${seq}\n`);
    for (const [seq, count] of progress.deliveries) {
      if (seq > progress.floor && !progress.done.has(seq)) parts.push(`D\t${Array(count).fill(seq).join(' ')}\n`);
    }
    this.file.rewrite(parts.join(''));
  }

  close(): void {
    this.file.close();
  }
}

function parseProgress(lines: readonly string[]): DurableProgress {
  const progress: DurableProgress = { floor: 0, done: new Set(), deliveries: new Map() };
  for (const line of lines) {
    const kind = line.slice(0, 2);
    const rest = line.slice(2);
    switch (kind) {
      case 'C\t':
        try {
          progress.settings = JSON.parse(rest) as DurableSettings;
        } catch {
          // unreadable settings: the next consume() writes them again
        }
        break;
      case 'F\t':
        progress.floor = Math.max(progress.floor, Number(rest) || 0);
        break;
      case 'A\t':
      case 'T\t': {
        const seq = Number(rest);
        if (Number.isInteger(seq)) progress.done.add(seq);
        break;
      }
      case 'D\t':
        for (const token of rest.split(' ')) {
          const seq = Number(token);
          if (Number.isInteger(seq)) progress.deliveries.set(seq, (progress.deliveries.get(seq) ?? 0) + 1);
        }
        break;
      default:
      // unknown or damaged line: ignore, the worst case is a redelivery
    }
  }
  return progress;
}
