import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Attacker-controlled values (paths, event names, props, referrers) reach the page only
// as Preact text: no source file may use an HTML sink or an inline style attribute.
const SRC = join(import.meta.dirname, '../src');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));

describe('the dashboard sources', () => {
  const sources = files(SRC).filter((f) => /\.(ts|tsx)$/.test(f));
  it('are found', () => expect(sources.length).toBeGreaterThan(20));
  for (const sink of [
    'dangerouslySetInnerHTML',
    'innerHTML',
    'outerHTML',
    'insertAdjacentHTML',
    'document.write',
    'eval(',
    'new Function',
    "setAttribute('style'",
    'style="',
  ]) {
    it(`never use ${sink}`, () => {
      const hits = sources.filter((f) => readFileSync(f, 'utf8').includes(sink));
      expect(hits).toEqual([]);
    });
  }
  it('compute a link only as a same-origin path or a referrerHref() URL with rel="noopener noreferrer nofollow"', () => {
    let outbound = 0;
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/<a [^>]*href=\{([^}]+)\}[^>]*>/g)) {
        if (match[1]!.startsWith('`/')) continue;
        outbound++;
        expect(match[1], file).toBe('href');
        expect(text, file).toContain('const href = tab.links ? referrerHref(row.value) : undefined;');
        expect(match[0], file).toContain('rel="noopener noreferrer nofollow"');
      }
    }
    expect(outbound).toBe(2); // the panel rows and the details dialog
  });
});
