import { describe, expect, it } from 'vitest';
import { ingestBatchSize, ingestDroppedEvents, ingestLag, ingestStoredEvents, readMetricValue } from '@sightline/telemetry';
import { recordStoredBatchFigures, storedBatchFigures } from './batch-telemetry.js';

describe('storedBatchFigures → recordStoredBatchFigures', () => {
  it('observes lag per event (now − event time), the batch size, stored events and drops by reason', async () => {
    const before = {
      lagSum: await readMetricValue(ingestLag, {}, '_sum'),
      lagCount: await readMetricValue(ingestLag, {}, '_count'),
      size: await readMetricValue(ingestBatchSize, {}, '_sum'),
      stored: await readMetricValue(ingestStoredEvents),
      bot: await readMetricValue(ingestDroppedEvents, { reason: 'bot' }),
      stale: await readMetricValue(ingestDroppedEvents, { reason: 'stale' }),
    };
    const now = Date.parse('2026-03-01T12:00:10.000Z');
    // 10 s and 2.5 s old
    const eventTimes = [Date.parse('2026-03-01T12:00:00.000Z'), Date.parse('2026-03-01T12:00:07.500Z')];
    recordStoredBatchFigures(
      storedBatchFigures(
        {
          eventTimes,
          rows: 7,
          drops: [
            { reason: 'bot', count: 3 },
            { reason: 'stale', count: 1 },
          ],
        },
        now,
      ),
    );

    expect(await readMetricValue(ingestLag, {}, '_count')).toBe(before.lagCount + 2);
    expect(await readMetricValue(ingestLag, {}, '_sum')).toBeCloseTo(before.lagSum + 12.5, 6);
    expect(await readMetricValue(ingestBatchSize, {}, '_sum')).toBe(before.size + 7);
    expect(await readMetricValue(ingestStoredEvents)).toBe(before.stored + 2);
    expect(await readMetricValue(ingestDroppedEvents, { reason: 'bot' })).toBe(before.bot + 3);
    expect(await readMetricValue(ingestDroppedEvents, { reason: 'stale' })).toBe(before.stale + 1);
  });
});
