/** Host name normalisation shared by the enrichment steps (referrer, page, spam, channel). */
import { domainToASCII } from 'node:url';

const MAX_HOST = 253;

/** Lowercase ASCII (punycode) host without port or trailing dot; '' when it is not a host name. */
export function normalizeHost(host: string): string {
  if (host.length > MAX_HOST * 4) return '';
  const bare = host.trim().replace(/:\d*$/, '').replace(/\.$/, '');
  const ascii = domainToASCII(bare);
  return ascii.length <= MAX_HOST ? ascii : '';
}

/** The host without a leading `www.` (how sources and page hostnames are shown). */
export function stripWww(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}

/** The host, then each parent domain down to two labels: a.b.example.com → b.example.com → example.com. */
export function* hostAndParents(host: string): Generator<string> {
  let current = host;
  for (;;) {
    yield current;
    const dot = current.indexOf('.');
    if (dot < 0 || current.indexOf('.', dot + 1) < 0) return;
    current = current.slice(dot + 1);
  }
}

/** Loopback and local development hosts: never a traffic source. */
export function isLocalHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '127.0.0.1' ||
    (host.startsWith('127.') && /^[\d.]+$/.test(host)) ||
    host === '[::1]' ||
    host === '0.0.0.0'
  );
}
