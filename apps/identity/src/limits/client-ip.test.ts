import { describe, expect, it } from 'vitest';
import { ipLimitKey } from './client-ip.js';

describe('ipLimitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:192.0.2.9', '192.0.2.9'],
    ['::ffff:c000:209', '192.0.2.9'],
    ['64:ff9b::192.0.2.9', '64:ff9b:0:0::/64'],
  ])('%j counts as %j', (ip, key) => {
    expect(ipLimitKey(ip)).toBe(key);
  });

  it.each(['', 'localhost', '1.2.3', '999.1.1.1', '2001:db8::g', 'unknown'])('%j is not an address', (ip) => {
    expect(ipLimitKey(ip)).toBeNull();
  });
});
