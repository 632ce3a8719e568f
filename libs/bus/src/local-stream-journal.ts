import { AppendOnlyFile, readLinesRepairingTail } from './append-only-file.js';

/** One stored message of a LocalBus stream. */
export interface StoredMessage {
  seq: number;
  /** Publish time, ms since the epoch (max age, dedupe window). */
  ts: number;
  subject: string;
  msgId?: string;
  /** the publisher's W3C trace context (traceparent/tracestate), when it was tracing */
  trace?: Readonly<Record<string, string>>;
  /** The payload as JSON text: each delivery parses its own copy. */
  json: string;
}

/**
 * On-disk journal of one stream, one line per record:
 *
 *   M<TAB>{"seq":1,"ts":...,"subject":"...","msgId":"...","trace":{...}}<TAB><payload JSON>
 *   B<TAB><seq>      (first line after compaction: every seq <= this was removed)
 *
 * JSON text never contains a raw tab or newline, so both split cleanly. The B line
 * keeps sequence numbers from being reused after compaction: ack logs refer to them.
 */
export interface JournalContents {
  /** Every seq <= baseSeq was compacted away. */
  baseSeq: number;
  messages: StoredMessage[];
  tornTailBytes: number;
  badLines: number;
}

export class StreamJournal {
  private readonly file: AppendOnlyFile;
  private base: number;

  private constructor(file: AppendOnlyFile, baseSeq: number) {
    this.file = file;
    this.base = baseSeq;
  }

  /** Reads the journal (repairing a torn last line) and opens it for appending. */
  static open(filePath: string, fsync: boolean): { journal: StreamJournal; contents: JournalContents } {
    const contents = readJournal(filePath);
    return { journal: new StreamJournal(new AppendOnlyFile(filePath, fsync), contents.baseSeq), contents };
  }

  get sizeBytes(): number {
    return this.file.sizeBytes;
  }

  /** Every seq <= baseSeq has been compacted away. */
  get baseSeq(): number {
    return this.base;
  }

  /** Appends the records of `messages`, in order, with one write. */
  appendAll(messages: readonly StoredMessage[]): void {
    let text = '';
    for (const m of messages) text += encodeMessage(m);
    this.file.append(text);
  }

  /** Atomically replaces the journal with `messages`, dropping everything <= baseSeq. */
  compact(baseSeq: number, messages: Iterable<StoredMessage>): void {
    const parts = [`B\t${baseSeq}\n`];
    for (const m of messages) parts.push(encodeMessage(m));
    this.file.rewrite(parts.join(''));
    this.base = baseSeq;
  }

  close(): void {
    this.file.close();
  }
}

function encodeMessage(m: StoredMessage): string {
  const header: Omit<StoredMessage, 'json'> = { seq: m.seq, ts: m.ts, subject: m.subject };
  if (m.msgId !== undefined) header.msgId = m.msgId;
  if (m.trace !== undefined) header.trace = m.trace;
  return `M\t${JSON.stringify(header)}\t${m.json}\n`;
}

function readJournal(filePath: string): JournalContents {
  const { lines, tornTailBytes } = readLinesRepairingTail(filePath);
  let baseSeq = 0;
  let badLines = 0;
  const messages: StoredMessage[] = [];
  for (const line of lines) {
    try {
      if (line.startsWith('B\t')) {
        baseSeq = Number(line.slice(2));
        continue;
      }
      const second = line.indexOf('\t', 2);
      if (!line.startsWith('M\t') || second < 0) throw new Error('not a journal record');
      const header = JSON.parse(line.slice(2, second)) as Omit<StoredMessage, 'json'>;
      const message: StoredMessage = { seq: header.seq, ts: header.ts, subject: header.subject, json: line.slice(second + 1) };
      if (header.msgId !== undefined) message.msgId = header.msgId;
      if (header.trace !== undefined) message.trace = header.trace;
      messages.push(message);
    } catch {
      // A complete but unreadable line means disk damage, not a crash; keep the rest.
      badLines++;
    }
  }
  return { baseSeq, messages: messages.filter((m) => m.seq > baseSeq), tornTailBytes, badLines };
}
