import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client's address is counted under. IPv4: the address. IPv6: its /64
 * network — one subscriber usually holds a whole /64, so counting single IPv6
 * addresses would let anyone step around a per-IP limit. IPv4-mapped IPv6 counts
 * as the IPv4 address. Null when `ip` is not an IP address.
 */
export function ipLimitKey(ip: string): string | null {
  const trimmed = ip.trim();
  if (isIPv4(trimmed)) return trimmed;
  if (!isIPv6(trimmed)) return null;
  const groups = expandIPv6(trimmed.split('%')[0]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** Eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
