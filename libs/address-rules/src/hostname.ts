import { domainToASCII } from 'node:url';

/**
 * A hostname in the one form every rule compares: lowercased, converted to ASCII
 * (IDNA/punycode, so `пример.рф` and `xn--e1afmkfd.xn--p1ai` are the same name, and
 * full-width or ideographic-dot look-alikes fold to plain ASCII), without the DNS
 * root dot. Returns null when the name cannot be converted.
 */
export function toAsciiHostname(raw: string): string | null {
  const trimmed = raw.trim();
  if (trimmed === '') return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === '') return null;
  // `mail.ru.` is the fully-qualified spelling of `mail.ru`: same zone, same rules.
  return ascii.endsWith('.') && !ascii.endsWith('..') ? ascii.slice(0, -1) : ascii;
}

/** true when `hostname` (ASCII) is `zone` itself or lies below it. */
export function isWithinZone(hostname: string, zone: string): boolean {
  return hostname === zone || hostname.endsWith(`.${zone}`);
}
