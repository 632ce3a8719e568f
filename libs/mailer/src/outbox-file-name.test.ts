import { describe, expect, it } from 'vitest';
import { OutboxFileNamer, tempNameFor } from './outbox-file-name.js';

describe('OutboxFileNamer', () => {
  const at = Date.UTC(2025, 2, 1, 10, 15, 2, 123);

  it('starts with a colon-free UTC time and ends in .eml', () => {
    const name = new OutboxFileNamer().next('<3f9c0a1e-77aa@sightline.test>', at);
    expect(name).toMatch(/^20250301T101502\.123Z-3f9c0a1e-77aa-[0-9a-f]{6}\.eml$/);
  });

  it('sorts in call order even within one millisecond or when the clock steps back', () => {
    const namer = new OutboxFileNamer();
    const names = [namer.next('<a@x>', at), namer.next('<b@x>', at), namer.next('<c@x>', at - 5_000)];
    expect([...names].sort()).toEqual(names);
    expect(new Set(names).size).toBe(3);
  });

  it('keeps only file-name-safe characters of the message id', () => {
    const name = new OutboxFileNamer().next('<../../etc/passwd\u0000@x>', at);
    expect(name).not.toMatch(/[/\\\u0000]/);
    expect(new OutboxFileNamer().next('<@x>', at)).toMatch(/-message-[0-9a-f]{6}\.eml$/);
  });

  it('temp names are hidden and not .eml', () => {
    expect(tempNameFor('x.eml')).toBe('.x.eml.tmp');
  });
});
