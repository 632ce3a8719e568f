import { describe, expect, it } from 'vitest';
import { emptySessionAttributes, screenClass, SESSION_ATTRIBUTE_COLUMNS, SESSION_ATTRIBUTES } from './attributes.js';
import { ImportRow } from './import-row.js';

describe('screenClass', () => {
  it('puts each width on the side of its edge: Mobile < 576 ≤ Tablet < 992 ≤ Laptop < 1440 ≤ Desktop', () => {
    expect(screenClass(1)).toBe('Mobile');
    expect(screenClass(575)).toBe('Mobile');
    expect(screenClass(576)).toBe('Tablet');
    expect(screenClass(991)).toBe('Tablet');
    expect(screenClass(992)).toBe('Laptop');
    expect(screenClass(1439)).toBe('Laptop');
    expect(screenClass(1440)).toBe('Desktop');
    expect(screenClass(100_000)).toBe('Desktop');
  });

  it('records nothing without a width (absent, 0: a hidden or prerendered page)', () => {
    expect(screenClass(undefined)).toBe('');
    expect(screenClass(0)).toBe('');
  });
});

describe('the session attribute catalogue', () => {
  it('names each column once, text columns empty as "" and numeric ones as 0', () => {
    expect(new Set(SESSION_ATTRIBUTE_COLUMNS).size).toBe(SESSION_ATTRIBUTES.length);
    for (const a of SESSION_ATTRIBUTES) expect(a.empty).toBe(a.ts === 'number' ? 0 : '');
    expect(emptySessionAttributes()).toMatchObject({ source: '', city: 0, screen: '' });
  });
});

describe('an import line’s screen', () => {
  const line = { timestamp: '2024-03-01T12:00:00Z', name: 'pageview', visitor_id: '1', pathname: '/' };
  const parse = (screen: unknown) => ImportRow.safeParse({ ...line, screen });

  it('takes a class name in any case, or a width classified like live traffic', () => {
    expect(parse('tablet').data?.screen).toBe('Tablet');
    expect(parse(' Desktop ').data?.screen).toBe('Desktop');
    expect(parse(575).data?.screen).toBe('Mobile');
    expect(parse(576).data?.screen).toBe('Tablet');
    expect(parse(1439).data?.screen).toBe('Laptop');
    expect(parse(1440).data?.screen).toBe('Desktop');
  });

  it('reads absent, null and "" as not recorded', () => {
    expect(ImportRow.parse(line).screen).toBe('');
    expect(parse(null).data?.screen).toBe('');
    expect(parse('').data?.screen).toBe('');
  });

  it('refuses another word, a fraction or a negative width, naming the column', () => {
    for (const bad of ['Phablet', 375.5, -1, true]) {
      const parsed = parse(bad);
      expect(parsed.success, String(bad)).toBe(false);
      expect(parsed.error?.issues[0]?.path, String(bad)).toEqual(['screen']);
    }
  });
});
