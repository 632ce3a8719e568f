import { createTransport, type SMTPPoolOptions, type Transporter } from 'nodemailer';
import { toNodemailerMessage } from './nodemailer-message.js';
import type { MailMessage, Mailer, SentMail } from './mailer.js';
import { SendGate } from './send-gate.js';
import { describeSmtpEndpoint, parseSmtpUrl, type SmtpEndpoint } from './smtp-url.js';

/** Milliseconds. Short on purpose: a login request waits on `send`, so a dead relay must fail it, not hang it. */
export interface SmtpTimeouts {
  /** TCP connect plus the server's greeting. */
  connectMs: number;
  /** Waiting for the greeting once connected. */
  greetingMs: number;
  /** Inactivity on an open connection. */
  socketMs: number;
  /** Resolving the host name. */
  dnsMs: number;
  /**
   * Whole `send`, queueing included. Catches a server that trickles replies slowly
   * enough to never trip the socket timeout.
   */
  sendMs: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = {
  connectMs: 5_000,
  greetingMs: 5_000,
  socketMs: 15_000,
  dnsMs: 5_000,
  sendMs: 30_000,
};

export interface SmtpMailerOptions {
  /** `SMTP_URL`; see smtp-url.ts for the accepted forms. */
  url: string;
  /** Sender, e.g. `Sightline <no-reply@example.com>`. */
  from: string;
  timeouts?: Partial<SmtpTimeouts>;
}

/** Delivers through an SMTP relay over a small pool of reused connections. */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  /** Where mail goes, without the password; safe to log. */
  readonly endpoint: string;

  private readonly transporter: Transporter;
  private readonly from: string;
  private readonly sendMs: number;
  private readonly gate = new SendGate('SmtpMailer');

  constructor(options: SmtpMailerOptions) {
    const endpoint = parseSmtpUrl(options.url);
    const timeouts = { ...DEFAULT_SMTP_TIMEOUTS, ...options.timeouts };
    this.endpoint = describeSmtpEndpoint(endpoint);
    this.from = options.from;
    this.sendMs = timeouts.sendMs;
    this.transporter = createTransport(transportOptions(endpoint, timeouts));
  }

  send(message: MailMessage): Promise<SentMail> {
    return this.gate.run(async () => {
      const info = await this.transporter.sendMail({
        ...toNodemailerMessage(this.from, message),
        signal: AbortSignal.timeout(this.sendMs),
      });
      return { messageId: info.messageId };
    });
  }

  async verify(): Promise<void> {
    if (this.gate.isClosed) throw new Error('SmtpMailer is closed');
    // Opens its own connection (connect, EHLO, STARTTLS, AUTH) outside the pool.
    await this.transporter.verify();
  }

  async close(): Promise<void> {
    await this.gate.close();
    // Pooled connections idle for minutes otherwise and keep the process alive.
    this.transporter.close();
  }
}

function transportOptions(endpoint: SmtpEndpoint, timeouts: SmtpTimeouts): SMTPPoolOptions & { pool: true } {
  return {
    pool: true,
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.secure,
    ignoreTLS: endpoint.startTls === 'off' && !endpoint.secure,
    requireTLS: endpoint.startTls === 'required',
    ...(endpoint.auth ? { auth: { user: endpoint.auth.user, pass: endpoint.auth.pass } } : {}),
    tls: { rejectUnauthorized: endpoint.rejectUnauthorized, minVersion: 'TLSv1.2' },
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.dnsMs,
    // Each message is for exactly one person (it may carry a login code): refuse lists
    // such as "victim@x, attacker@y" instead of delivering the code to both.
    maxRecipients: 1,
    // Message content is plain strings; never let nodemailer read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  };
}
