import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { publicIp } from './public-ip.js';

describe('publicIp', () => {
  it('keeps public IPv4 as given and refuses malformed dotted quads', () => {
    expect(publicIp('81.2.69.142')).toEqual({ family: 4, address: '81.2.69.142' });
    expect(publicIp('8.8.8.8')).toEqual({ family: 4, address: '8.8.8.8' });
    // leading zeros are decimal (as ipaddr.js's four-part decimal), written canonically
    expect(publicIp('081.002.069.142')).toEqual({ family: 4, address: '81.2.69.142' });
    for (const bad of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '1..2.3', '1.2.3.4.', '.1.2.3', '1.2.3.1000', '1.2.3.-4', '1.2.3.4 ', 'a.b.c.d', '']) {
      expect(publicIp(bad), bad).toBeUndefined();
    }
  });

  it('refuses special-purpose IPv4 blocks at their edges', () => {
    for (const special of [
      '0.0.0.0',
      '10.255.255.255',
      '127.0.0.1',
      '169.254.1.1',
      '192.168.0.1',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.255',
      '224.0.0.1',
      '255.255.255.255',
      '010.0.0.1',
    ]) {
      expect(publicIp(special), special).toBeUndefined();
    }
  });

  it('handles IPv6 and IPv4-mapped IPv6', () => {
    expect(publicIp('2a00:1450:4001:82a::200e')).toEqual({ family: 6, address: '2a00:1450:4001:82a:0:0:0:200e' });
    expect(publicIp('::ffff:81.2.69.142')).toEqual({ family: 4, address: '81.2.69.142' });
    expect(publicIp('::1')).toBeUndefined();
    expect(publicIp('fe80::1')).toBeUndefined();
    expect(publicIp('::ffff:192.168.1.1')).toBeUndefined();
  });

  it('agrees with ipaddr.js on 20 000 random dotted quads, special blocks included', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    // bias the first octet toward the special blocks so their edges are hit often
    const firsts = [0, 10, 100, 127, 169, 172, 192, 198, 203, 223, 224, 239, 240, 255];
    for (let i = 0; i < 20_000; i += 1) {
      const first = i % 2 === 0 ? firsts[Math.floor(random() * firsts.length)]! : Math.floor(random() * 256);
      const text = [first, Math.floor(random() * 256), Math.floor(random() * 256), Math.floor(random() * 256)].join('.');
      const expected = ipaddr.IPv4.parse(text).range() === 'unicast' ? { family: 4, address: text } : undefined;
      expect(publicIp(text), text).toEqual(expected);
    }
  });
});
