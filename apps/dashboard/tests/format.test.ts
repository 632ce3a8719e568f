import { describe, expect, it } from 'vitest';
import { comparisonOf, flagOf, formatChange, formatTotal, formatCount, formatDuration, formatExact, formatMetric, referrerHref } from '../src/format.js';

describe('formatting', () => {
  it('shortens counts', () => {
    expect([0, 999, 1000, 1234, 9_950, 12_345, 999_499, 999_950, 1_500_000, 2_000_000_000].map(formatCount)).toEqual([
      '0',
      '999',
      '1k',
      '1.2k',
      '9.9k',
      '12k',
      '999k',
      '1.0M',
      '1.5M',
      '2B',
    ]);
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

  it('an empty comparison period reads "new" or "—", decided on its visits, never "was 0%"', () => {
    // the API's answer when the previous period had no visits: bounce rate 0, change +23 pp
    const empty = {
      metrics: { visits: 0, visitors: 0, bounce_rate: 0, visit_duration: 0 },
      change: { visits: null, visitors: null, bounce_rate: 23, visit_duration: null },
    };
    const now = { visits: 40, visitors: 30, bounce_rate: 23, visit_duration: 61 };
    expect(comparisonOf('bounce_rate', now, empty)).toEqual({
      text: 'new',
      direction: 'flat',
      good: undefined,
      label: 'new: no visits in the comparison period',
    });
    expect(comparisonOf('visitors', now, empty)?.text).toBe('new');
    expect(comparisonOf('bounce_rate', now, empty)?.previous).toBeUndefined();
    const none = { visits: 0, visitors: 0, bounce_rate: 0, visit_duration: 0 };
    expect(comparisonOf('bounce_rate', none, empty)).toEqual({ text: '—', direction: 'flat', good: undefined, label: 'no visits in either period' });
    // a breakdown row (visitors, no visits) absent from the comparison period
    expect(
      comparisonOf('bounce_rate', { visitors: 3, bounce_rate: 100 }, { metrics: { visitors: 0, bounce_rate: 0 }, change: { visitors: null, bounce_rate: 100 } })
        ?.text,
    ).toBe('new');
  });

  it('a comparison with visits shows the change and the previous value', () => {
    const before = {
      metrics: { visits: 10, visitors: 8, bounce_rate: 0, visit_duration: null },
      change: { visits: 300, visitors: 275, bounce_rate: 23, visit_duration: null },
    };
    const now = { visits: 40, visitors: 30, bounce_rate: 23, visit_duration: 61 };
    // a real 0% bounce rate over 10 visits is a value: it is shown
    expect(comparisonOf('bounce_rate', now, before)).toEqual({
      text: '+23 pp',
      direction: 'up',
      good: false,
      previous: 'was 0%',
      label: '+23 pp against the comparison period, was 0%',
    });
    expect(comparisonOf('visitors', now, before)).toMatchObject({ text: '+275%', good: true, previous: 'was 8' });
    // the API's null change (no value on one side) reads as a dash, with the previous value
    expect(comparisonOf('visit_duration', now, before)).toEqual({
      text: '—',
      direction: 'flat',
      good: undefined,
      previous: 'was –',
      label: 'no change to show, was –',
    });
    expect(comparisonOf('visitors', now, undefined)).toBeUndefined();
  });

  it('totals over no visits: counts are 0, rates and averages a dash', () => {
    const none = { visitors: 0, visits: 0, pageviews: 0, views_per_visit: 0, bounce_rate: 0, visit_duration: null };
    expect(['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'].map((m) => formatTotal(m, none))).toEqual([
      '0',
      '0',
      '0',
      '–',
      '–',
      '–',
    ]);
    expect(formatTotal('bounce_rate', { visits: 4, bounce_rate: 0 })).toBe('0%');
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
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:x',
      'https://a.b/\r\nSet-Cookie: x',
      'a b.com',
      'Direct / None',
      'localhost',
      'java\u0000script:alert(1)',
      'ftp://example.org/',
    ]) {
      expect(referrerHref(bad), bad).toBeUndefined();
    }
  });
});
