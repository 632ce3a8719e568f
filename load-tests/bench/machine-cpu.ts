import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * CPU time of the whole machine and of other processes, from /proc (Linux): a bench
 * whose process shares the cores with a server (nats-server) shows how much of the
 * machine the run took, so "the pipeline is slow" and "the machine was full" can be
 * told apart. The machine's figures are undefined where /proc is not there.
 */

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

export interface MachineCpu {
  /** jiffies all cores spent working (user, nice, system, irq, softirq) */
  busy: number;
  /** jiffies the hypervisor gave to others while we were ready to run */
  steal: number;
  /** all jiffies (busy, idle, iowait, steal) */
  total: number;
}

export function machineCpu(): MachineCpu | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal (guest time is inside user already)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const busy = user + nice + system + irq + softirq;
    return { busy, steal, total: busy + idle + iowait + steal };
  } catch {
    return undefined;
  }
}

/** Shares of all cores' time between two snapshots that were busy and stolen, 0–1. */
export function cpuShares(before: MachineCpu | undefined, after: MachineCpu | undefined): { busy: number; steal: number } | undefined {
  if (!before || !after || after.total === before.total) return undefined;
  const total = after.total - before.total;
  return { busy: (after.busy - before.busy) / total, steal: (after.steal - before.steal) / total };
}

/**
 * CPU seconds (user + system, every thread) a process has used so far, from /proc/<pid>/stat;
 * with `mainThreadOnly`, its main thread's alone (JavaScript, the event loop), from
 * /proc/<pid>/task/<pid>/stat: the rest is a native engine's threads, the libuv pool, GC helpers.
 */
export function processCpuSeconds(pid: number, mainThreadOnly = false): number {
  const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

export const CORES = os.availableParallelism();
