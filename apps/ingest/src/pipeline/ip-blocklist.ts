import ipaddr from 'ipaddr.js';

/** Parsed blocked-IP entries of a site: single addresses and CIDR ranges, v4 and v6. */
export interface IpBlocklist {
  has(ip: string): boolean;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseEntry(entry: string): Range | null {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const addr = ipaddr.parse(entry);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null; // settings validated them; an unreadable entry blocks nothing
  }
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4, what dual-stack sockets report) compares as IPv4. */
function normalize(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address();
    return addr;
  } catch {
    return null;
  }
}

export function compileIpBlocklist(entries: readonly string[]): IpBlocklist {
  const ranges = entries.map(parseEntry).filter((r): r is Range => r !== null);
  return {
    has(ip) {
      if (ranges.length === 0) return false;
      const addr = normalize(ip);
      if (!addr) return false;
      return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
    },
  };
}
