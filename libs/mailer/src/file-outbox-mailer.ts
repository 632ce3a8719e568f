import { constants } from 'node:fs';
import { access, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTransport } from 'nodemailer';
import { toNodemailerMessage } from './nodemailer-message.js';
import type { MailMessage, Mailer, SentMail } from './mailer.js';
import { OutboxFileNamer, tempNameFor } from './outbox-file-name.js';
import { SendGate } from './send-gate.js';

export interface FileOutboxMailerOptions {
  /** Directory the `.eml` files go to (`<data dir>/mail`); created when missing. */
  dir: string;
  /** Sender, e.g. `Sightline <no-reply@localhost>`. */
  from: string;
}

// Outbox files hold login codes: readable by the service user only.
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * "Sends" by writing each message as one RFC 822 file into a directory, for development
 * and single-process installs without a relay. The message is built by nodemailer exactly
 * as the SMTP adapter would put it on the wire (CRLF line ends), so any mail client opens it.
 */
export class FileOutboxMailer implements Mailer {
  readonly kind = 'file' as const;
  readonly dir: string;

  private readonly from: string;
  private readonly composer = createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    // Same guards as the SMTP adapter (see smtp-mailer.ts).
    maxRecipients: 1,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });
  private readonly namer = new OutboxFileNamer();
  private readonly gate = new SendGate('FileOutboxMailer');
  private dirReady: Promise<void> | undefined;

  constructor(options: FileOutboxMailerOptions) {
    this.dir = path.resolve(options.dir);
    this.from = options.from;
  }

  send(message: MailMessage): Promise<SentMail> {
    return this.gate.run(async () => {
      const info = await this.composer.sendMail(toNodemailerMessage(this.from, message));
      // SMTP refuses a message without recipients; keep the outbox just as strict.
      if (info.envelope.to.length === 0) throw new Error('Message has no recipient');
      if (!Buffer.isBuffer(info.message)) throw new Error('nodemailer returned a stream despite buffer: true');

      const fileName = this.namer.next(info.messageId);
      await this.ensureDir();
      try {
        await this.writeAtomically(fileName, info.message);
      } catch (error) {
        // Someone emptied the outbox with `rm -r`: recreate it once and retry.
        if (!isNotFound(error)) throw error;
        this.dirReady = undefined;
        await this.ensureDir();
        await this.writeAtomically(fileName, info.message);
      }
      return { messageId: info.messageId };
    });
  }

  async verify(): Promise<void> {
    if (this.gate.isClosed) throw new Error('FileOutboxMailer is closed');
    await this.ensureDir();
    const info = await stat(this.dir);
    if (!info.isDirectory()) throw new Error(`Mail outbox ${this.dir} is not a directory`);
    await access(this.dir, constants.W_OK);
  }

  async close(): Promise<void> {
    await this.gate.close();
  }

  private ensureDir(): Promise<void> {
    // Memoised so concurrent sends share one mkdir; reset on failure so a later call retries.
    this.dirReady ??= mkdir(this.dir, { recursive: true, mode: DIR_MODE }).then(
      () => undefined,
      (error: unknown) => {
        this.dirReady = undefined;
        throw error;
      },
    );
    return this.dirReady;
  }

  /** A reader never sees a partial file: write a temp name in the same dir, then rename (atomic on one filesystem). */
  private async writeAtomically(fileName: string, data: Buffer): Promise<void> {
    const finalPath = path.join(this.dir, fileName);
    const tempPath = path.join(this.dir, tempNameFor(fileName));
    try {
      await writeFile(tempPath, data, { flag: 'wx', mode: FILE_MODE, flush: true });
      await rename(tempPath, finalPath);
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
