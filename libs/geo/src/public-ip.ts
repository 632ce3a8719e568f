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

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** IPv4 special-purpose blocks (RFC 6890 and successors) as [network, prefix length]. */
const IPV4_SPECIAL: Array<[number, number]> = (
  [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
    ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.31.196.0', 24], ['192.52.193.0', 24],
    ['192.88.99.0', 24], ['192.168.0.0', 16], ['192.175.48.0', 24], ['198.18.0.0', 15],
    ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const
).map(([net, bits]) => [ipv4Number(net.split('.').map(Number)), bits]);

function ipv4Number(octets: number[]): number {
  return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
}

/** Fast path for the common case, about 10× quicker than ipaddr.js's parse + range(). */
function publicIpv4(match: RegExpExecArray): PublicIp | undefined {
  const octets = [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])];
  if (octets.some((o) => o > 255)) return undefined;
  const n = ipv4Number(octets);
  for (const [net, bits] of IPV4_SPECIAL) if (n >>> (32 - bits) === net >>> (32 - bits)) return undefined;
  return { family: 4, address: octets.join('.') };
}

export function publicIp(text: string): PublicIp | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_IP_LENGTH) return undefined;
  const quad = DOTTED_QUAD.exec(text);
  if (quad) return publicIpv4(quad);
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) parsed = ipaddr.IPv6.parse(text);
  else return undefined;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return publicIp((parsed as ipaddr.IPv6).toIPv4Address().toString());
  }
  if (parsed.range() !== 'unicast') return undefined;
  return parsed.kind() === 'ipv4'
    ? { family: 4, address: parsed.toString() }
    : { family: 6, address: (parsed as ipaddr.IPv6).toNormalizedString() };
}
