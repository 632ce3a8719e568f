import { describe, expect, it } from 'vitest';
import { collectedSubject } from './collected-shard.js';
import { LocalBus } from './local-bus.js';
import { LEGACY_EVENTS_STREAM, SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS } from './streams.js';
import { subjectMatches } from './subject-match.js';

const captured = (subject: string) =>
  SIGHTLINE_STREAMS.filter((stream) => stream.subjects.some((pattern) => subjectMatches(pattern, subject))).map((s) => s.name);

describe('stream catalogue', () => {
  it('stores each durable subject in exactly one stream', () => {
    expect(captured(collectedSubject(0))).toEqual(['EVENTS_WQ']);
    expect(captured(collectedSubject(7))).toEqual(['EVENTS_WQ']);
    expect(captured(SUBJECTS.siteDeleted)).toEqual(['SITES']);
    expect(captured(SUBJECTS.settingsChanged)).toEqual(['SETTINGS']);
  });

  it('keeps the broadcast subjects out of every stream (JetStream would store them)', () => {
    expect(captured(SUBJECTS.keysRevoked)).toEqual([]);
    expect(captured(SUBJECTS.reportAccessChanged)).toEqual([]);
    expect(captured(SUBJECTS.reportDataChanged)).toEqual([]);
  });

  it('keeps collected events (raw IP and UA) in a work queue with a 3-day backstop, superseding EVENTS', () => {
    const events = SIGHTLINE_STREAMS.find((s) => s.name === STREAM_NAMES.events);
    expect(events).toMatchObject({
      retention: 'workqueue',
      maxAgeMs: 72 * 3_600_000,
      supersedes: { name: LEGACY_EVENTS_STREAM, narrowTo: ['events.collected'] },
    });
    // the legacy unsharded subject is not captured by the new stream, so the narrowed EVENTS may keep it
    expect(captured('events.collected')).toEqual([]);
  });

  it('is accepted by a bus (valid names, no overlapping subjects)', async () => {
    const bus = new LocalBus();
    try {
      await bus.ensureStreams(SIGHTLINE_STREAMS);
      await bus.ensureStreams(SIGHTLINE_STREAMS); // idempotent
      await bus.publish(collectedSubject(3), {
        k: 'abcdefgh',
        n: 'pageview',
        u: 'https://a.example/',
        d: 'a.example',
        ts: '2026-01-01T00:00:00Z',
        ip: '192.0.2.1',
        ua: 'x',
      });
      expect(bus.streamStats('EVENTS_WQ')?.lastSeq).toBe(1);
    } finally {
      await bus.close();
    }
  });
});
