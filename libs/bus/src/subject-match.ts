/**
 * NATS subject rules, for LocalBus (NatsBus lets the server apply them): tokens are
 * separated by `.`, `*` matches exactly one token, `>` (last token only) matches one
 * or more tokens.
 */

const WHITESPACE = /\s/;

/** A concrete subject one can publish to: non-empty tokens, no wildcards. */
export function isValidPublishSubject(subject: string): boolean {
  if (subject.length === 0 || WHITESPACE.test(subject)) return false;
  return subject.split('.').every((token) => token.length > 0 && !token.includes('*') && !token.includes('>'));
}

/** A subscription/stream pattern: wildcards only as whole tokens, `>` only last. */
export function isValidSubjectPattern(pattern: string): boolean {
  if (pattern.length === 0 || WHITESPACE.test(pattern)) return false;
  const tokens = pattern.split('.');
  return tokens.every((token, i) => {
    if (token.length === 0) return false;
    if (token === '*') return true;
    if (token === '>') return i === tokens.length - 1;
    return !token.includes('*') && !token.includes('>');
  });
}

export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
}

/** True when some concrete subject matches both patterns (NATS forbids streams to overlap). */
export function subjectsOverlap(a: string, b: string): boolean {
  const ta = a.split('.');
  const tb = b.split('.');
  for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
    const x = ta[i];
    const y = tb[i];
    if (x === undefined || y === undefined) return false;
    if (x === '>' || y === '>') return true;
    if (x !== '*' && y !== '*' && x !== y) return false;
  }
  return true;
}
