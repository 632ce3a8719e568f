// Test support for other packages' tests (`@sightline/mailer/testing`): a real SMTP
// server capturing what it receives, and a small parser for the captured messages.
export { startSmtpSink } from './smtp-sink.js';
export type { CapturedMail, SmtpSink } from './smtp-sink.js';
export { parseMessage } from './raw-message.js';
export type { ParsedMessage } from './raw-message.js';
