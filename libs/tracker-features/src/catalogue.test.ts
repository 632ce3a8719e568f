import { describe, expect, it } from 'vitest';
import { FEATURE_CATALOGUE, PRESETS, bundleName, normalizeSelection, unmetRequirement } from './catalogue.js';

describe('feature catalogue', () => {
  it('keeps locked features on and orders selections like the catalogue', () => {
    expect(normalizeSelection([])).toEqual(['pageviews']);
    expect(normalizeSelection(['scroll', 'engagement', 'scroll'])).toEqual(['pageviews', 'engagement', 'scroll']);
  });

  it('finds unmet dependencies', () => {
    expect(unmetRequirement(normalizeSelection(['scroll']))).toEqual({ feature: 'scroll', requires: 'engagement' });
    expect(unmetRequirement(normalizeSelection(['scroll', 'engagement']))).toBeUndefined();
  });

  it('names presets and custom selections', () => {
    expect(bundleName(['pageviews'])).toBe('minimal');
    expect(bundleName([])).toBe('minimal');
    expect(bundleName(PRESETS.standard)).toBe('standard');
    expect(bundleName(FEATURE_CATALOGUE.map((f) => f.id))).toBe('full');
    expect(bundleName(['pageviews', 'utm'])).toBe('custom');
  });

  it('has presets that satisfy their own dependencies', () => {
    for (const preset of Object.values(PRESETS)) expect(unmetRequirement(normalizeSelection(preset))).toBeUndefined();
  });
});
