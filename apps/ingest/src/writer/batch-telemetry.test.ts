import { describe, expect, it } from 'vitest';
import type { EventRow } from '@sightline/events-schema';
import { ingestBatchSize, ingestDroppedEvents, ingestLag, ingestStoredEvents } from '@sightline/telemetry';
import { recordStoredBatch } from './batch-telemetry.js';

type Metric = { get(): Promise<{ values: { labels: Record<string, string | number>; value: number; metricName?: string }[] }> };
const value = async (metric: Metric, suffix: string, labels: Record<string, string> = {}) =>
  (await metric.get()).values.find((v) => (suffix === '' || v.metricName?.endsWith(suffix)) && v.labels.le === undefined && Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;

describe('recordStoredBatch', () => {
  it('observes lag per event (now − event time), the batch size, stored events and drops by reason', async () => {
    const before = {
      lagSum: await value(ingestLag, '_sum'), lagCount: await value(ingestLag, '_count'), size: await value(ingestBatchSize, '_sum'),
      stored: await value(ingestStoredEvents, ''), bot: await value(ingestDroppedEvents, '', { reason: 'bot' }), stale: await value(ingestDroppedEvents, '', { reason: 'stale' }),
    };
    const now = Date.parse('2026-03-01T12:00:10.000Z');
    // 10 s and 2.5 s old
    const events = [{ timestamp: '2026-03-01 12:00:00.000' }, { timestamp: '2026-03-01 12:00:07.500' }] as EventRow[];
    recordStoredBatch({ events, rows: 7, drops: [{ reason: 'bot', count: 3 }, { reason: 'stale', count: 1 }] }, now);

    expect(await value(ingestLag, '_count')).toBe(before.lagCount + 2);
    expect(await value(ingestLag, '_sum')).toBeCloseTo(before.lagSum + 12.5, 6);
    expect(await value(ingestBatchSize, '_sum')).toBe(before.size + 7);
    expect(await value(ingestStoredEvents, '')).toBe(before.stored + 2);
    expect(await value(ingestDroppedEvents, '', { reason: 'bot' })).toBe(before.bot + 3);
    expect(await value(ingestDroppedEvents, '', { reason: 'stale' })).toBe(before.stale + 1);
  });
});
