import { describe, expect, it } from 'vitest';
import { LocalBus } from './local-bus.js';
import { SIGHTLINE_STREAMS, SUBJECTS } from './streams.js';
import { subjectMatches } from './subject-match.js';

const captured = (subject: string) =>
  SIGHTLINE_STREAMS.filter((stream) => stream.subjects.some((pattern) => subjectMatches(pattern, subject))).map((s) => s.name);

describe('stream catalogue', () => {
  it('stores each durable subject in exactly one stream', () => {
    expect(captured(SUBJECTS.eventsCollected)).toEqual(['EVENTS']);
    expect(captured(SUBJECTS.siteDeleted)).toEqual(['SITES']);
    expect(captured(SUBJECTS.settingsChanged)).toEqual(['SETTINGS']);
  });

  it('keeps the broadcast subject out of every stream (JetStream would store it)', () => {
    expect(captured(SUBJECTS.keysRevoked)).toEqual([]);
  });

  it('is accepted by a bus (valid names, no overlapping subjects)', async () => {
    const bus = new LocalBus();
    try {
      await bus.ensureStreams(SIGHTLINE_STREAMS);
      await bus.ensureStreams(SIGHTLINE_STREAMS); // idempotent
      await bus.publish(SUBJECTS.eventsCollected, {});
      expect(bus.streamStats('EVENTS')?.lastSeq).toBe(1);
    } finally {
      await bus.close();
    }
  });
});
