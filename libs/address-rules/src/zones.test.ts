import { describe, expect, it } from 'vitest';
import { REFUSED_ZONES, REFUSED_ZONES_TEXT, refusedZoneOf, undeliverableZoneOf } from './zones.js';
import { toAsciiHostname } from './hostname.js';

describe('refusedZoneOf (site hostnames and mail domains)', () => {
  it.each([
    ['mail.ru', '.ru'],
    ['ru', '.ru'],
    ['Shop.Example.RU.', '.ru'],
    ['a.b.c.su', '.su'],
    ['tut.by', '.by'],
    ['пример.рф', '.рф'],
    ['xn--e1afmkfd.xn--p1ai', '.рф'],
    ['рф', '.рф'],
    ['site.бел', '.бел'],
    ['site.xn--90ais', '.бел'],
    ['mail.ｒｕ', '.ru'],
  ])('%j is in %s', (hostname, zone) => {
    expect(refusedZoneOf(hostname)).toBe(zone);
  });

  it.each(['mail.com', 'ru.com', 'russia.com', 'mail.rus', 'byte.dev', 'su.example.net', 'xn--p1ai.com', '', '   ', 'a b'])(
    '%j is in no refused zone',
    (hostname) => {
      expect(refusedZoneOf(hostname)).toBeNull();
    },
  );

  it('lists the zones in the order the spec names them', () => {
    expect(REFUSED_ZONES_TEXT).toBe('.ru, .su, .by, .рф, .бел');
    expect(REFUSED_ZONES.map((z) => z.ascii)).toEqual(['ru', 'su', 'by', 'xn--p1ai', 'xn--90ais']);
  });
});

describe('undeliverableZoneOf', () => {
  it.each([
    ['example.com', 'example.com'],
    ['www.EXAMPLE.org', 'example.org'],
    ['example.net.', 'example.net'],
    ['a.test', 'test'],
    ['x.invalid', 'invalid'],
    ['x.example', 'example'],
    ['localhost', 'localhost'],
    ['app.localhost', 'localhost'],
  ])('%j is under %s', (hostname, zone) => {
    expect(undeliverableZoneOf(hostname)).toBe(zone);
  });

  it.each(['example.co', 'myexample.com', 'test.com', 'localhost.dev'])('%j is deliverable', (hostname) => {
    expect(undeliverableZoneOf(hostname)).toBeNull();
  });
});

describe('toAsciiHostname', () => {
  it('lowercases, converts to punycode and drops the root dot', () => {
    expect(toAsciiHostname(' Пример.РФ. ')).toBe('xn--e1afmkfd.xn--p1ai');
    expect(toAsciiHostname('a b')).toBeNull();
    expect(toAsciiHostname('')).toBeNull();
  });
});
