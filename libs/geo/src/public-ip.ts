// Which addresses are worth a geo lookup: only public unicast ones. Private, loopback,
// link-local, CGNAT, documentation and other special ranges say nothing about where a
// visitor is, so they are "unknown" rather than whatever the database files them under.
import ipaddr from 'ipaddr.js';

export interface PublicIp {
  family: 4 | 6;
  /** Canonical text form; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) comes back as IPv4. */
  address: string;
}

/** Longest textual IPv6 address with a zone is far below this; anything longer is junk. */
const MAX_IP_LENGTH = 64;

export function publicIp(text: string): PublicIp | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_IP_LENGTH) return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) parsed = ipaddr.IPv6.parse(text);
  else return undefined;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== 'unicast') return undefined;
  return parsed.kind() === 'ipv4'
    ? { family: 4, address: parsed.toString() }
    : { family: 6, address: (parsed as ipaddr.IPv6).toNormalizedString() };
}
