import { describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { hobbyZoneOf, parseSiteUrl } from './site-url.js';
import { parseTimezone, parseWeekStart } from './site-settings-input.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return (error as ApiError).code;
  }
  return 'ok';
};

describe('parseSiteUrl', () => {
  it.each([
    ['https://example.com', 'https://example.com', 'example.com', null],
    ['HTTP://WWW.Example.COM/', 'http://www.example.com', 'www.example.com', null],
    ['https://example.com:443', 'https://example.com', 'example.com', null],
    ['http://example.com:8080/', 'http://example.com:8080', 'example.com', 8080],
    ['https://münchen.de', 'https://xn--mnchen-3ya.de', 'xn--mnchen-3ya.de', null],
    ['https://ＥＸＡＭＰＬＥ.com', 'https://example.com', 'example.com', null],
    ['https://example.com.', 'https://example.com', 'example.com', null],
  ])('%s → %s', (raw, origin, host, port) => {
    expect(parseSiteUrl(raw)).toEqual({ origin, host, port, scheme: origin.split(':')[0] });
  });

  it.each([
    ['https://example.com/a', /path/],
    ['https://example.com\\a', /path/],
    ['https://example.com?x', /query/],
    ['https://example.com#x', /fragment/],
    ['https://a@example.com', /user info/],
    ['ws://example.com', /scheme ws/],
    ['example.com', /http:\/\/ or https:\/\//],
    ['https://10.0.0.1', /IP address/],
    ['https://[2001:db8::1]', /IP address/],
    ['https://intranet', /single-label/],
    ['https://example.com:65536', /port/],
    ['https://exa_mple.com', /valid host/],
    ['https://a..com', /valid host/],
  ])('%s is invalid_request (%s)', (raw, why) => {
    expect(() => parseSiteUrl(raw)).toThrow(why);
    expect(codeOf(() => parseSiteUrl(raw))).toBe('invalid_request');
  });

  it('names refused zones in any spelling, before other host rules', () => {
    for (const raw of [
      'https://a.ru',
      'https://A.RU:8080',
      'https://пример.рф',
      'https://xn--e1afmkfd.xn--p1ai',
      'https://x.бел',
      'https://ru',
      'https://a_b.ru',
    ]) {
      expect(
        codeOf(() => parseSiteUrl(raw)),
        raw,
      ).toBe('domain_not_allowed');
    }
    expect(codeOf(() => parseSiteUrl('https://ru.example.com'))).toBe('ok');
  });
});

describe('hobby zones and settings', () => {
  it('a hobby host lies strictly below a zone', () => {
    const zones = ['github.io', 'pages.dev'];
    expect(hobbyZoneOf('me.github.io', zones)).toBe('github.io');
    expect(hobbyZoneOf('a.b.pages.dev', zones)).toBe('pages.dev');
    expect(hobbyZoneOf('github.io', zones)).toBeNull();
    expect(hobbyZoneOf('evilgithub.io', zones)).toBeNull();
    expect(hobbyZoneOf('github.io.evil.com', zones)).toBeNull();
  });

  it('timezones are canonical IANA names; week_start 0..6', () => {
    expect(parseTimezone('europe/paris')).toBe('Europe/Paris');
    expect(parseTimezone(' UTC ')).toBe('UTC');
    for (const bad of ['+02:00', 'GMT+2 ', 'Paris', 'Europe/Atlantis', ''])
      expect(
        codeOf(() => parseTimezone(bad)),
        bad,
      ).toBe('invalid_request');
    expect(parseWeekStart(0)).toBe(0);
    expect(parseWeekStart(6)).toBe(6);
    for (const bad of [-1, 7, 1.5]) expect(codeOf(() => parseWeekStart(bad))).toBe('invalid_request');
  });
});
