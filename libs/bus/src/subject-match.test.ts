import { describe, expect, it } from 'vitest';
import { isValidPublishSubject, isValidSubjectPattern, subjectMatches, subjectsOverlap } from './subject-match.js';

describe('subject matching (NATS rules)', () => {
  it.each([
    ['events.>', 'events.collected', true],
    ['events.>', 'events.a.b.c', true],
    ['events.>', 'events', false],
    ['events.*', 'events.collected', true],
    ['events.*', 'events.a.b', false],
    ['*.collected', 'events.collected', true],
    ['events.collected', 'events.collected', true],
    ['events.collected', 'events.collected.x', false],
    ['a.*.c.>', 'a.b.c.d.e', true],
    ['a.*.c.>', 'a.b.x.d', false],
    ['>', 'anything.at.all', true],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  it.each([
    ['events.>', 'events.collected', true],
    ['events.>', 'site.>', false],
    ['a.*', 'a.>', true],
    ['a.*', 'a.b.c', false],
    ['a.>', 'a', false],
    ['*.b', 'a.*', true],
    ['a.b', 'a.c', false],
  ])('%s overlaps %s: %s', (a, b, expected) => {
    expect(subjectsOverlap(a, b)).toBe(expected);
    expect(subjectsOverlap(b, a)).toBe(expected);
  });

  it('validates subjects and patterns', () => {
    expect(isValidPublishSubject('events.collected')).toBe(true);
    expect(isValidPublishSubject('events.*')).toBe(false);
    expect(isValidPublishSubject('events..x')).toBe(false);
    expect(isValidPublishSubject('events x')).toBe(false);
    expect(isValidSubjectPattern('events.>')).toBe(true);
    expect(isValidSubjectPattern('events.>.x')).toBe(false);
    expect(isValidSubjectPattern('ev*nts.x')).toBe(false);
  });
});
