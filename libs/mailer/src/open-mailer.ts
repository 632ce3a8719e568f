import path from 'node:path';
import { FileOutboxMailer } from './file-outbox-mailer.js';
import type { Mailer } from './mailer.js';
import { SmtpMailer } from './smtp-mailer.js';

export interface OpenMailerOptions {
  /** `SMTP_URL`. Unset or blank: no relay, mail goes to the file outbox. */
  smtpUrl?: string;
  /** `SIGHTLINE_DATA_DIR`; the outbox is `<dataDir>/mail` unless `outboxDir` says otherwise. */
  dataDir: string;
  /** `MAIL_OUTBOX_DIR`: where the file outbox writes. */
  outboxDir?: string;
  /** `MAIL_FROM`. */
  from: string;
}

/** Picks the adapter from configuration: SMTP when a URL is set, otherwise the file outbox. */
export function openMailer(options: OpenMailerOptions): Mailer {
  const smtpUrl = options.smtpUrl?.trim();
  if (smtpUrl) return new SmtpMailer({ url: smtpUrl, from: options.from });
  return new FileOutboxMailer({ dir: options.outboxDir ?? path.join(options.dataDir, 'mail'), from: options.from });
}
