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

/** IPv4 special-purpose blocks (RFC 6890 and successors) as [network, prefix length]. */
const IPV4_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
// as parallel typed arrays: the per-event check walks them without an iterator or a destructured pair
const SPECIAL_NETWORKS = Uint32Array.from(IPV4_SPECIAL, ([net]) => net.split('.').reduce((n, octet) => n * 256 + Number(octet), 0));
const SPECIAL_SHIFTS = Uint8Array.from(IPV4_SPECIAL, ([, bits]) => 32 - bits);

const DOT = 46;
const ZERO = 48;

/**
 * Fast path for the common case, a dotted quad (`1.2.3.4`, at most 3 digits an
 * octet): parsed by character codes, no allocation but the result, about 10×
 * quicker than ipaddr.js's parse + range(). `undefined`: not a dotted quad (the
 * slow path decides); `null`: a dotted quad that is not public.
 */
function publicIpv4(text: string): PublicIp | null | undefined {
  let n = 0;
  let octets = 0;
  let value = 0;
  let digits = 0;
  let leadingZero = false;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : DOT;
    if (code === DOT) {
      if (digits === 0 || value > 255) return undefined;
      n = n * 256 + value;
      octets += 1;
      value = 0;
      digits = 0;
    } else if (code >= ZERO && code <= ZERO + 9) {
      if (digits === 3) return undefined;
      if (digits === 1 && value === 0) leadingZero = true;
      value = value * 10 + (code - ZERO);
      digits += 1;
    } else {
      return undefined;
    }
  }
  if (octets !== 4) return undefined;
  for (let i = 0; i < SPECIAL_NETWORKS.length; i += 1) {
    const shift = SPECIAL_SHIFTS[i]!;
    if (n >>> shift === SPECIAL_NETWORKS[i]! >>> shift) return null;
  }
  // the text is already canonical unless an octet has a leading zero (`010.1.2.3`)
  const address = leadingZero ? [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.') : text;
  return { family: 4, address };
}

export function publicIp(text: string): PublicIp | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_IP_LENGTH) return undefined;
  const quad = publicIpv4(text);
  if (quad !== undefined) return quad ?? undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) parsed = ipaddr.IPv6.parse(text);
  else return undefined;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return publicIp((parsed as ipaddr.IPv6).toIPv4Address().toString());
  }
  if (parsed.range() !== 'unicast') return undefined;
  return parsed.kind() === 'ipv4' ? { family: 4, address: parsed.toString() } : { family: 6, address: (parsed as ipaddr.IPv6).toNormalizedString() };
}
