export type { MailMessage, Mailer, SentMail } from './mailer.js';
export { SmtpMailer, DEFAULT_SMTP_TIMEOUTS } from './smtp-mailer.js';
export type { SmtpMailerOptions, SmtpTimeouts } from './smtp-mailer.js';
export { FileOutboxMailer } from './file-outbox-mailer.js';
export type { FileOutboxMailerOptions } from './file-outbox-mailer.js';
export { openMailer } from './open-mailer.js';
export type { OpenMailerOptions } from './open-mailer.js';
export { parseSmtpUrl, describeSmtpEndpoint, SmtpUrlError } from './smtp-url.js';
export type { SmtpEndpoint, StartTlsPolicy } from './smtp-url.js';
