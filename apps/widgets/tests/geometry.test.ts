import { describe, expect, it } from 'vitest';
import { markerSize, pulseScale, rotationToward } from '../src/globe/markers.js';
import { level } from '../src/map/levels.js';
import { flag, windowLabel } from '../src/core/format.js';
import { backoff } from '../src/core/widget.js';

describe('map shading classes', () => {
  it('puts the busiest country in class 5 and one visitor in class 1 (hand-computed)', () => {
    // 1 + floor(v / max × 4.999)
    expect(level(300, 300)).toBe(5);
    expect(level(1, 300)).toBe(1);
    expect(level(100, 300)).toBe(2); // 1 + floor(1.666)
    expect(level(240, 300)).toBe(4); // 1 + floor(3.999)
    expect(level(241, 300)).toBe(5); // 1 + floor(4.016)
    expect(level(1, 1)).toBe(5);
  });
});

describe('globe markers', () => {
  it('grows with the square root of visitors from a floor', () => {
    expect(markerSize(9, 9)).toBeCloseTo(0.1);
    expect(markerSize(1, 4)).toBeCloseTo(0.03 + 0.07 * 0.5);
    expect(markerSize(0, 4)).toBeCloseTo(0.03);
  });
  it('pulses to 2.2× half-way and is back to 1 at the end', () => {
    expect(pulseScale(1500, 3000)).toBeCloseTo(2.2);
    expect(pulseScale(3000, 3000)).toBe(1);
    expect(pulseScale(-1, 3000)).toBe(1);
  });
  it('faces Berlin: phi = π − (lon·π/180 − π/2), theta = lat·π/180', () => {
    const [phi, theta] = rotationToward(52.52, 13.41);
    expect(phi).toBeCloseTo(Math.PI - (0.234049 - Math.PI / 2), 5);
    expect(theta).toBeCloseTo(0.916646, 5);
  });
});

describe('labels', () => {
  it('reads windows as people do', () => {
    expect(windowLabel('30d')).toBe('last 30 days');
    expect(windowLabel('7d')).toBe('last 7 days');
    expect(windowLabel('month')).toBe('this month');
    expect(windowLabel('12mo')).toBe('last 12 months');
    expect(windowLabel('')).toBe('last 30 days');
  });
  it('draws flags from two capital letters only', () => {
    expect(flag('DE')).toBe('🇩🇪');
    expect(flag('de')).toBe('');
    expect(flag('<s')).toBe('');
  });
});

describe('retry after a failure', () => {
  it('waits 15 s (±20 %) after the first failure, doubling to at most 30 minutes', () => {
    for (let i = 0; i < 50; i += 1) {
      expect(backoff(1)).toBeGreaterThanOrEqual(12_000);
      expect(backoff(1)).toBeLessThanOrEqual(18_000);
      expect(backoff(3)).toBeGreaterThanOrEqual(48_000); // 60 s − 20 %
      expect(backoff(3)).toBeLessThanOrEqual(72_000);
      expect(backoff(40)).toBeLessThanOrEqual(36 * 60_000);
      expect(backoff(40)).toBeGreaterThanOrEqual(24 * 60_000);
    }
  });
});
