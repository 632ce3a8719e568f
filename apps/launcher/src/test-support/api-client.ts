import type { SmtpSink } from '@sightline/mailer/testing';
import { parseMessage } from '@sightline/mailer/testing';

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * Speaks to a running Sightline over HTTP exactly as a client would. `ip` is sent
 * as X-Forwarded-For, honoured only because the test server trusts 127.0.0.1 as a
 * proxy — that is how tests give each scenario its own client address.
 */
export class ApiClient {
  constructor(
    readonly base: string,
    private readonly ip?: string,
  ) {}

  withIp(ip: string): ApiClient {
    return new ApiClient(this.base, ip);
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { 'user-agent': 'sightline-e2e/1.0', ...options.headers };
    if (this.ip) headers['x-forwarded-for'] = this.ip;
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
  }
}

/** The six-digit code of the newest mail to `email` captured after the first `after` mails. */
export async function codeFromMail(sink: SmtpSink, email: string, after = 0, timeoutMs = 5_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = sink.received
      .slice(after)
      .reverse()
      .find((m) => m.rcptTo.includes(email));
    if (mail) {
      const code = /\b(\d{6})\b/.exec(parseMessage(mail.raw).text)?.[1];
      if (code) return code;
    }
    if (Date.now() > deadline) throw new Error(`no code mailed to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface Registered {
  token: string;
  key: { id: string; permissions: string[]; expires_at: string; site_id: number | null };
  created: boolean;
}

/** send-otp → read the mail → verify-otp, as a person following the docs would. */
export async function register(api: ApiClient, sink: SmtpSink, email: string, extra: Record<string, unknown> = {}): Promise<Registered> {
  const before = sink.received.length;
  const sent = await api.request('POST', '/api/v1/auth/send-otp', { body: { email } });
  if (sent.status !== 200) throw new Error(`send-otp answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  const code = await codeFromMail(sink, email, before);
  const verified = await api.request<Registered>('POST', '/api/v1/auth/verify-otp', { body: { email, code, accept_terms: true, key_name: 'e2e', ...extra } });
  if (verified.status !== 200) throw new Error(`verify-otp answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  return verified.body;
}

let ipCounter = 0;
/** A client address no other test in this process uses (TEST-NET-3 range). */
export function freshIp(): string {
  ipCounter += 1;
  return `203.0.${113 + Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}
