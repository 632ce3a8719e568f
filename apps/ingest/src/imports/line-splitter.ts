import { IMPORT_MAX_LINE_BYTES } from '@sightline/events-schema';

export type SplitLine = { line: number; text: string } | { line: number; tooLong: true };

/**
 * Cuts an upload, arriving in chunks of any size, into numbered lines (LF or CRLF).
 * Holds at most one partial line; a line past IMPORT_MAX_LINE_BYTES is reported as too
 * long and its bytes are skipped up to the next newline, never buffered. Blank lines
 * keep their number but yield nothing.
 */
export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #skipping = false;
  #line = 0;

  /** Lines completed by this chunk. */
  *push(chunk: Buffer): Generator<SplitLine> {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!this.#skipping) {
        this.#pending.push(chunk.subarray(start, end));
        this.#pendingBytes += end - start;
        if (this.#pendingBytes > IMPORT_MAX_LINE_BYTES) {
          this.#skipping = true;
          this.#pending = [];
          this.#pendingBytes = 0;
        }
      }
      if (newline < 0) break;
      yield* this.#finishLine();
      start = newline + 1;
    }
  }

  /** The last line when the upload does not end with a newline. */
  *end(): Generator<SplitLine> {
    if (this.#skipping || this.#pendingBytes > 0) yield* this.#finishLine();
  }

  *#finishLine(): Generator<SplitLine> {
    this.#line += 1;
    if (this.#skipping) {
      this.#skipping = false;
      yield { line: this.#line, tooLong: true };
      return;
    }
    const text = Buffer.concat(this.#pending).toString('utf8').replace(/\r$/, '');
    this.#pending = [];
    this.#pendingBytes = 0;
    if (text.trim() !== '') yield { line: this.#line, text };
  }
}
