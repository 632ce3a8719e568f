/**
 * Outgoing mail. Two adapters: `SmtpMailer` (nodemailer over SMTP, production)
 * and `FileOutboxMailer` (one RFC 822 `.eml` file per message in
 * `<data dir>/mail/`, single process and development).
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SentMail {
  messageId: string;
}

export interface Mailer {
  readonly kind: 'smtp' | 'file';
  send(message: MailMessage): Promise<SentMail>;
  /** Resolves when the transport can deliver (SMTP server answers; outbox dir writable). */
  verify(): Promise<void>;
  close(): Promise<void>;
}
