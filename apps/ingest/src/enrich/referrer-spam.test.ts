import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isReferrerSpam, REFERRER_SPAM_DOMAINS } from './referrer-spam.js';

const listed = readFileSync(new URL('../../data/referrer-spam.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'));

describe('isReferrerSpam', () => {
  it('loads every listed domain', () => {
    expect(REFERRER_SPAM_DOMAINS).toBe(new Set(listed.map((d) => d.toLowerCase())).size);
    expect(REFERRER_SPAM_DOMAINS).toBeGreaterThan(2000);
  });
  it('matches listed domains, their subdomains, any case, port or trailing dot', () => {
    expect(isReferrerSpam('0-0.fr')).toBe(true);
    expect(isReferrerSpam('www.0-0.fr')).toBe(true);
    expect(isReferrerSpam('a.b.0-0.fr')).toBe(true);
    expect(isReferrerSpam('0-0.FR:8080')).toBe(true);
    expect(isReferrerSpam('0-0.fr.')).toBe(true);
    expect(isReferrerSpam('qiwi.xyz')).toBe(true); // listed as QIWI.xyz
  });
  it('does not match a domain that only ends with the same letters, nor real sites', () => {
    expect(isReferrerSpam('x0-0.fr')).toBe(false);
    expect(isReferrerSpam('0-0.fr.example.com')).toBe(false);
    for (const host of ['google.com', 'news.ycombinator.com', 'github.com', 'example.com', '', 'localhost']) {
      expect(isReferrerSpam(host)).toBe(false);
    }
  });
  it('matches every entry of the list', () => {
    expect(listed.filter((d) => !isReferrerSpam(d))).toEqual([]);
  });
});
