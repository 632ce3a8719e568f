import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** Bytes read back per chunk: one LineSplitter push each. */
const READ_CHUNK_BYTES = 64 * 1024;

export interface SpooledUpload {
  /** The upload again, as chunks read from the file. */
  read(): AsyncIterable<Buffer>;
  remove(): Promise<void>;
}

/**
 * Writes an upload to a temporary file as it arrives and returns it once the
 * upload has ended whole. Nothing reaches the events store before that, so an
 * upload cut short or refused over the limit costs a file, never staged rows or
 * the engine's memory (an embedded engine not yet loaded stays unloaded). Holds
 * one chunk at a time; on any failure the file is removed and the error rethrown.
 */
export async function spoolUpload(chunks: AsyncIterable<Buffer>, dir = os.tmpdir()): Promise<SpooledUpload> {
  const folder = await mkdtemp(path.join(dir, 'sightline-upload-'));
  const remove = () => rm(folder, { recursive: true, force: true });
  const file = path.join(folder, 'upload.ndjson');
  try {
    // pipeline: backpressure from the disk, and the file stream closed on any failure
    await pipeline(chunks, createWriteStream(file));
  } catch (error) {
    await remove();
    throw error;
  }
  return { read: () => createReadStream(file, { highWaterMark: READ_CHUNK_BYTES }), remove };
}
