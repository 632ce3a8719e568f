import { describe, expect, it } from 'vitest';
import { openGeoLookup } from '@sightline/geo';
import { DeferredGeoLookup } from './deferred-geo-lookup.js';

describe('DeferredGeoLookup', () => {
  it('reads nothing until opened, opens once for concurrent callers, then answers as the real lookup', async () => {
    let opens = 0;
    const geo = new DeferredGeoLookup(async () => {
      opens += 1;
      return openGeoLookup();
    });
    expect(opens).toBe(0);
    expect(() => geo.lookup('8.8.8.8')).toThrow(/before open/);
    await Promise.all([geo.open(), geo.open(), geo.open()]);
    expect({ opens, opened: geo.opened }).toEqual({ opens: 1, opened: true });
    // 8.8.8.8 is Google's resolver, registered in the US; a private address has no location
    expect(geo.lookup('8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', city: 5375480 });
    expect(geo.lookup('10.1.2.3')).toEqual({ country: '', region: '', city: 0 });
  });

  it('a failed open is retried by the next call', async () => {
    let opens = 0;
    const geo = new DeferredGeoLookup(async () => {
      opens += 1;
      if (opens === 1) throw new Error('mmdb unreadable');
      return { lookup: (ip) => ({ country: ip === '192.0.2.1' ? 'DE' : '', region: '', city: 0 }) };
    });
    await expect(geo.open()).rejects.toThrow('mmdb unreadable');
    expect(geo.opened).toBe(false);
    await geo.open();
    expect(geo.lookup('192.0.2.1').country).toBe('DE');
    expect(opens).toBe(2);
  });
});
