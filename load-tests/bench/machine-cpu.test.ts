import { describe, expect, it } from 'vitest';
import { cpuShares, machineCpu, processCpuSeconds } from './machine-cpu.js';

// The CPU figures of the benches (per event, per process, the machine's share).
describe('machine CPU figures', () => {
  it('reads a process’s CPU seconds from /proc as the process itself counts them', () => {
    // 300 ms of CPU, not of wall time: on a loaded machine the wall clock runs ahead
    const cpuNow = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1e6;
    };
    const burnUntil = cpuNow() + 0.3;
    let spin = 0;
    while (cpuNow() < burnUntil) spin += 1;
    expect(spin).toBeGreaterThan(0);
    const fromProc = processCpuSeconds(process.pid);
    const mainThread = processCpuSeconds(process.pid, true);
    // /proc counts in clock ticks (10 ms here): the two agree to within a few
    expect(fromProc).toBeGreaterThanOrEqual(0.3);
    expect(Math.abs(fromProc - cpuNow())).toBeLessThan(0.1);
    // the burn ran on the main thread; the other threads (GC helpers, the libuv pool) add to the whole
    expect(mainThread).toBeGreaterThanOrEqual(0.3);
    expect(mainThread).toBeLessThanOrEqual(fromProc);
  });

  it('splits the time between two snapshots into busy and stolen shares', () => {
    expect(cpuShares({ busy: 100, steal: 10, total: 1000 }, { busy: 400, steal: 60, total: 2000 })).toEqual({ busy: 0.3, steal: 0.05 });
    expect(cpuShares({ busy: 1, steal: 0, total: 5 }, { busy: 1, steal: 0, total: 5 })).toBeUndefined();
    expect(cpuShares(undefined, { busy: 1, steal: 0, total: 5 })).toBeUndefined();
  });

  it('reads the machine’s counters: busy and stolen time within the total', () => {
    const now = machineCpu()!;
    expect(now.total).toBeGreaterThan(0);
    expect(now.busy).toBeLessThanOrEqual(now.total);
    expect(now.steal).toBeLessThanOrEqual(now.total);
  });
});
