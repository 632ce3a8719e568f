/** A store a service depends on, checked for readiness (`ping` of a Db, EventStore, Bus, Mailer). */
export interface StoreProbe {
  role: 'db' | 'events' | 'bus' | 'mail';
  kind: string;
  check(): Promise<void>;
}

export interface StoreProbeResult {
  role: string;
  kind: string;
  reachable: boolean;
  detail: string;
  latencyMs: number;
}

const PROBE_TIMEOUT_MS = 3_000;

/** Runs every probe concurrently, each bounded by a timeout so one hung store can't stall readiness. */
export async function runProbes(probes: readonly StoreProbe[]): Promise<StoreProbeResult[]> {
  return Promise.all(
    probes.map(async (probe) => {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          probe.check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
          }),
        ]);
        return { role: probe.role, kind: probe.kind, reachable: true, detail: '', latencyMs: Math.round(performance.now() - started) };
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        return { role: probe.role, kind: probe.kind, reachable: false, detail, latencyMs: Math.round(performance.now() - started) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
