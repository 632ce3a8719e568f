import { describe, expect, it } from 'vitest';
import { captureLog } from '@sightline/testkit';
import { shutdownPhases } from './shutdown-phases.js';

function capturingLogger() {
  const { log, records } = captureLog('launcher', 'warn');
  return { log, lines: records };
}

describe('shutdownPhases', () => {
  it('names the phase a slow stop is still waiting on, beside the ones that ended', async () => {
    const { log, lines } = capturingLogger();
    const phases = shutdownPhases(log, 40);
    await phases.run('gateway', async () => {});
    let release!: () => void;
    const hung = phases.run('ingest: work', () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await hung;
    const finished = phases.done();

    expect(lines().length).toBeGreaterThan(0);
    expect(lines()[0]).toMatchObject({ msg: 'shutdown is slow', finished: [expect.stringMatching(/^gateway \d+ ms$/)] });
    expect(lines()[0]!.waiting_on).toEqual([expect.stringMatching(/^ingest: work \(\d+ ms\)$/)]);
    expect(finished.map((f) => f.phase)).toEqual(['gateway', 'ingest: work']);
    expect(finished[1]!.ms).toBeGreaterThanOrEqual(90);
  });

  it('says nothing when every phase ends in time, and stops watching when done', async () => {
    const { log, lines } = capturingLogger();
    const phases = shutdownPhases(log, 30);
    await phases.run('gateway', async () => {});
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(lines()).toEqual([]);
    void phases.run('never ends', () => new Promise<void>(() => {}));
    phases.done();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(lines()).toEqual([]);
  });

  it('times a phase that fails and passes its error on', async () => {
    const { log } = capturingLogger();
    const phases = shutdownPhases(log, 1_000);
    await expect(phases.run('stores', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(phases.done().map((f) => f.phase)).toEqual(['stores']);
  });
});
