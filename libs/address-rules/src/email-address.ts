import { toAsciiHostname } from './hostname.js';
import { REFUSED_ZONES_TEXT, refusedZoneOf, undeliverableZoneOf } from './zones.js';

export type EmailCheck = { ok: true; email: string } | { ok: false; code: 'invalid_request' | 'email_undeliverable' | 'domain_not_allowed'; message: string };

const MAX_ADDRESS = 254; // RFC 5321 path limit minus the angle brackets
const MAX_MAILBOX = 64;
const MAX_DOMAIN = 253;
// RFC 5322 dot-atom: no quoted mailboxes, no comments; nobody registers with those.
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
// ASCII characters allowed in a domain as typed; non-ASCII is left to IDNA.
const DOMAIN_ASCII_CHARS = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const NON_ASCII = /[^\x00-\x7F]/;
const SPACE_OR_CONTROL = /[\s\x00-\x1F\x7F]/;

const invalid = (message: string): EmailCheck => ({ ok: false, code: 'invalid_request', message });
const undeliverable = (message: string): EmailCheck => ({ ok: false, code: 'email_undeliverable', message });

/**
 * Decides whether Sightline accepts `raw` as an account address, and returns its one
 * normalized form.
 *
 * Normalization: trimmed; the whole address lowercased — mailboxes are case-sensitive
 * in theory only, and one spelling per person means one account per person and no
 * way around the per-address code limit by changing case; the domain in its ASCII
 * (punycode) form without a trailing root dot, so Unicode and punycode spellings of a
 * domain are the same account.
 *
 * Order: syntax (400 `invalid_request`), non-ASCII mailbox / reserved or special-use
 * domain (400 `email_undeliverable`), refused zone (400 `domain_not_allowed`).
 */
export function checkEmailAddress(raw: unknown): EmailCheck {
  if (typeof raw !== 'string') return invalid('email must be a string.');
  const trimmed = raw.trim();
  if (trimmed.length > MAX_ADDRESS) return invalid(`email must be at most ${MAX_ADDRESS} characters.`);
  if (SPACE_OR_CONTROL.test(trimmed)) return invalid('email must not contain spaces or control characters.');
  const parts = trimmed.split('@');
  if (parts.length !== 2) return invalid('email must contain exactly one @, like name@example.net.');
  const [mailbox = '', domain = ''] = parts;
  if (mailbox === '') return invalid('email needs a mailbox before the @.');
  if (NON_ASCII.test(mailbox)) return undeliverable('The part of the address before the @ must be plain ASCII; this address cannot receive mail here.');
  if (mailbox.length > MAX_MAILBOX) return invalid(`The part of the address before the @ must be at most ${MAX_MAILBOX} characters.`);
  if (!DOT_ATOM.test(mailbox)) return invalid('The part of the address before the @ is malformed.');

  const ascii = domain !== '' && DOMAIN_ASCII_CHARS.test(domain) ? toAsciiHostname(domain) : null;
  if (ascii === null || !isMailDomain(ascii)) return invalid('email needs a domain name after the @, like name@example.net.');

  const reserved = undeliverableZoneOf(ascii);
  if (reserved !== null) return undeliverable(`Addresses under ${reserved.includes('.') ? reserved : `.${reserved}`} are reserved and cannot receive mail.`);
  const refused = refusedZoneOf(ascii);
  if (refused !== null) {
    return { ok: false, code: 'domain_not_allowed', message: `Addresses in the zone ${refused} are not accepted (refused zones: ${REFUSED_ZONES_TEXT}).` };
  }

  const email = `${mailbox.toLowerCase()}@${ascii}`;
  if (email.length > MAX_ADDRESS) return invalid(`email must be at most ${MAX_ADDRESS} characters once its domain is in ASCII form.`);
  return { ok: true, email };
}

/** At least two DNS labels, each valid, and a top-level label that is not a number (no bare IP addresses). */
function isMailDomain(ascii: string): boolean {
  if (ascii.length > MAX_DOMAIN) return false;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  return !/^[0-9]+$/.test(labels[labels.length - 1]!);
}
