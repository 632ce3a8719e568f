/**
 * Parses `SMTP_URL` into connection settings.
 *
 * Supported forms:
 * - `smtp://host[:port]`                – port defaults to 587; STARTTLS is used when the
 *                                         server offers it (opportunistic)
 * - `smtps://host[:port]`               – TLS from the first byte; port defaults to 465
 * - `smtp[s]://user:pass@host[:port]`   – AUTH with these credentials; characters such as
 *                                         `@ : / %` in them must be percent-encoded
 *
 * Query options (booleans accept true/false/1/0):
 * - `tls=false` or `ignoreTLS=true`     – smtp:// only: never STARTTLS, even when offered
 *                                         (local relays such as Mailpit with a broken cert)
 * - `requireTLS=true`                   – smtp:// only: fail unless STARTTLS succeeds
 * - `rejectUnauthorized=false`          – accept self-signed / unverifiable certificates
 *
 * Anything else (unknown options, a path, a user without a password) is rejected, so a
 * typo fails at startup instead of silently sending mail some other way. Error messages
 * never contain the URL itself: it may carry a password.
 */
export type StartTlsPolicy = 'opportunistic' | 'required' | 'off';

export interface SmtpEndpoint {
  host: string;
  port: number;
  /** Implicit TLS (smtps://). */
  secure: boolean;
  /** What to do about STARTTLS on a plain connection; always 'off' when `secure`. */
  startTls: StartTlsPolicy;
  auth?: { user: string; pass: string };
  /** false accepts certificates that do not verify (self-signed relays). */
  rejectUnauthorized: boolean;
}

const DEFAULT_PORTS = { 'smtp:': 587, 'smtps:': 465 } as const;
const KNOWN_OPTIONS = ['tls', 'ignoreTLS', 'requireTLS', 'rejectUnauthorized'];

export class SmtpUrlError extends Error {
  constructor(problem: string) {
    super(`Invalid SMTP_URL: ${problem}`);
    this.name = 'SmtpUrlError';
  }
}

export function parseSmtpUrl(raw: string): SmtpEndpoint {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SmtpUrlError('not a URL (expected smtp://[user:pass@]host[:port] or smtps://…)');
  }
  const protocol = url.protocol;
  if (protocol !== 'smtp:' && protocol !== 'smtps:') {
    throw new SmtpUrlError(`scheme must be smtp:// or smtps://, got ${protocol}//`);
  }
  // URL keeps IPv6 literals bracketed; sockets want them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new SmtpUrlError('missing host');
  if (url.pathname !== '' && url.pathname !== '/') throw new SmtpUrlError('unexpected path after host[:port]');
  if (url.hash) throw new SmtpUrlError('unexpected #fragment');

  const secure = protocol === 'smtps:';
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[protocol];
  const options = readOptions(url.searchParams);

  const ignoreTls = options.get('ignoreTLS') === true || options.get('tls') === false;
  const requireTls = options.get('requireTLS') === true;
  if (ignoreTls && requireTls) throw new SmtpUrlError('tls=false/ignoreTLS and requireTLS contradict each other');
  if (secure && (ignoreTls || requireTls)) {
    throw new SmtpUrlError('smtps:// is TLS from the start; tls/ignoreTLS/requireTLS only apply to smtp://');
  }
  const startTls: StartTlsPolicy = secure || ignoreTls ? 'off' : requireTls ? 'required' : 'opportunistic';

  const endpoint: SmtpEndpoint = {
    host,
    port,
    secure,
    startTls,
    rejectUnauthorized: options.get('rejectUnauthorized') !== false,
  };
  const auth = readAuth(url);
  if (auth) endpoint.auth = auth;
  return endpoint;
}

/** The endpoint without its password, for log lines and error messages. */
export function describeSmtpEndpoint(endpoint: SmtpEndpoint): string {
  const user = endpoint.auth ? `${encodeURIComponent(endpoint.auth.user)}@` : '';
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.secure ? 'smtps' : 'smtp'}://${user}${host}:${endpoint.port}`;
}

function readAuth(url: URL): { user: string; pass: string } | undefined {
  if (!url.username && !url.password) return undefined;
  const user = decode(url.username, 'user name');
  const pass = decode(url.password, 'password');
  if (!user) throw new SmtpUrlError('password given without a user name');
  if (!pass) throw new SmtpUrlError('user name given without a password');
  return { user, pass };
}

function decode(component: string, what: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    throw new SmtpUrlError(`${what} has a malformed %-escape`);
  }
}

function readOptions(params: URLSearchParams): Map<string, boolean> {
  const options = new Map<string, boolean>();
  for (const [key, value] of params) {
    if (!KNOWN_OPTIONS.includes(key)) {
      throw new SmtpUrlError(`unknown option "${key}" (supported: ${KNOWN_OPTIONS.join(', ')})`);
    }
    if (options.has(key)) throw new SmtpUrlError(`option "${key}" given twice`);
    options.set(key, parseBoolean(key, value));
  }
  return options;
}

function parseBoolean(key: string, value: string): boolean {
  switch (value.toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      throw new SmtpUrlError(`option "${key}" must be true or false`);
  }
}
