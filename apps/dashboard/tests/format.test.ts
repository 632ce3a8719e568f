import { describe, expect, it } from 'vitest';
import { flagOf, formatChange, formatCount, formatDuration, formatExact, formatMetric, referrerHref } from '../src/format.js';

describe('formatting', () => {
  it('shortens counts', () => {
    expect([0, 999, 1000, 1234, 9_950, 12_345, 999_499, 999_950, 1_500_000, 2_000_000_000].map(formatCount)).toEqual(['0', '999', '1k', '1.2k', '9.9k', '12k', '999k', '1.0M', '1.5M', '2B']);
  });

  it('writes durations', () => {
    expect([0, 42.4, 60, 65, 3599, 3600, 3725].map(formatDuration)).toEqual(['0s', '42s', '1m 00s', '1m 05s', '59m 59s', '1h 00m', '1h 02m']);
  });

  it('formats each metric kind; no data reads as a dash', () => {
    expect(formatMetric('bounce_rate', 42)).toBe('42%');
    expect(formatMetric('exit_rate', 33.3)).toBe('33.3%');
    expect(formatMetric('views_per_visit', 2.5)).toBe('2.50');
    expect(formatMetric('visit_duration', 164)).toBe('2m 44s');
    expect(formatMetric('visit_duration', null)).toBe('–');
    expect(formatExact('visitors', 1234567)).toBe('1,234,567');
  });

  it('writes changes: percent for counts, points for rates, lower bounce is good', () => {
    expect(formatChange('visitors', 12)).toEqual({ text: '+12%', direction: 'up', good: true });
    expect(formatChange('visitors', -3)).toEqual({ text: '−3%', direction: 'down', good: false });
    expect(formatChange('bounce_rate', -4)).toEqual({ text: '−4 pp', direction: 'down', good: true });
    expect(formatChange('conversion_rate', 1.25)).toEqual({ text: '+1.3 pp', direction: 'up', good: true });
    expect(formatChange('visitors', 0)).toEqual({ text: '±0%', direction: 'flat', good: undefined });
    expect(formatChange('visitors', null)).toBeUndefined();
  });

  it('makes flags from two letters only', () => {
    expect(flagOf('DE')).toBe('🇩🇪');
    expect(flagOf('us')).toBe('🇺🇸');
    expect(flagOf('')).toBe('');
    expect(flagOf('D1')).toBe('');
    expect(flagOf('DEU')).toBe('');
  });

  it('links referrers only as http(s) URLs', () => {
    expect(referrerHref('https://news.ycombinator.com/')).toBe('https://news.ycombinator.com/');
    expect(referrerHref('news.ycombinator.com')).toBe('https://news.ycombinator.com/');
    expect(referrerHref('http://example.org/a?b=1')).toBe('http://example.org/a?b=1');
    for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', 'https://a.b/\r\nSet-Cookie: x', 'a b.com', 'Direct / None', 'localhost', 'java\u0000script:alert(1)', 'ftp://example.org/']) {
      expect(referrerHref(bad), bad).toBeUndefined();
    }
  });
});
