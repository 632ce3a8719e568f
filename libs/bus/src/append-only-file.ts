import { closeSync, existsSync, fstatSync, ftruncateSync, fsyncSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * A line-oriented append-only file, the storage primitive under LocalBus's stream
 * journals and ack logs.
 *
 * Appends are synchronous `write(2)` calls: once `append` returns, the bytes are in
 * the OS page cache and survive a crash of this process (SIGKILL, OOM kill, uncaught
 * exception). Surviving a machine crash additionally needs `fsync: true`.
 */
export class AppendOnlyFile {
  private fd: number;
  private bytes: number;

  constructor(
    readonly filePath: string,
    private readonly fsync: boolean,
  ) {
    this.fd = openSync(filePath, 'a');
    this.bytes = fstatSync(this.fd).size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /**
   * Appends `text` (whole lines). When the write or fsync fails, the file is cut
   * back to its previous end, so a partly written batch cannot come back as
   * messages on the next open while its publishers were told it failed.
   */
  append(text: string): void {
    const buf = Buffer.from(text, 'utf8');
    try {
      writeFully(this.fd, buf);
      if (this.fsync) fsyncSync(this.fd);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.bytes);
      } catch {
        // the open-time repair still drops a torn last line
      }
      throw error;
    }
    this.bytes += buf.length;
  }

  /**
   * Replaces the whole content atomically: written to a temporary file, fsynced,
   * then renamed over the original. A crash at any point leaves either the old or
   * the new content, never a mix. (Always fsynced, whatever the append setting: a
   * rename that reaches the disk before the data would leave an empty file.)
   */
  rewrite(content: string): void {
    const tmp = `${this.filePath}.tmp`;
    const tmpFd = openSync(tmp, 'w');
    try {
      writeFully(tmpFd, Buffer.from(content, 'utf8'));
      fsyncSync(tmpFd);
    } finally {
      closeSync(tmpFd);
    }
    closeSync(this.fd);
    renameSync(tmp, this.filePath);
    fsyncDir(path.dirname(this.filePath));
    this.fd = openSync(this.filePath, 'a');
    this.bytes = fstatSync(this.fd).size;
  }

  close(): void {
    closeSync(this.fd);
  }
}

export interface ReadLinesResult {
  lines: string[];
  /** Bytes cut off the end: a line whose write was interrupted by a crash. */
  tornTailBytes: number;
}

/**
 * Reads every complete line. A last line without its newline is the remains of a
 * write interrupted by a crash (the newline is written last, in the same call); it
 * is truncated away so later appends start on a clean line.
 */
export function readLinesRepairingTail(filePath: string): ReadLinesResult {
  if (!existsSync(filePath)) return { lines: [], tornTailBytes: 0 };
  const buf = readFileSync(filePath);
  const end = buf.lastIndexOf(0x0a) + 1;
  const tornTailBytes = buf.length - end;
  if (tornTailBytes > 0) truncateSync(filePath, end);
  const text = buf.subarray(0, end).toString('utf8');
  const lines = text.length === 0 ? [] : text.slice(0, -1).split('\n');
  return { lines, tornTailBytes };
}

/** Writes `content` to `filePath` atomically (temporary file + rename). */
export function writeFileAtomically(filePath: string, content: string): void {
  const tmp = `${filePath}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeFully(fd, Buffer.from(content, 'utf8'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, filePath);
  fsyncDir(path.dirname(filePath));
}

function writeFully(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/** Makes a rename in `dir` durable. Best effort: some platforms cannot fsync a directory. */
function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported here (e.g. Windows); the rename itself is still atomic
  }
}
