interface Window {
  start: number;
  logged: number;
  /** lines demoted to debug since the last info line of this route and status */
  suppressed: number;
}

/**
 * Bounds the access-log lines of refusals on the high-volume routes (the tracker
 * endpoint, probes). A page that still carries a deleted site's snippet, or a broken
 * client, would otherwise write one info line per pageview, forever. Per route and
 * status, up to `burst` refusals per window are logged at info; the rest go to debug,
 * and the next info line of that route and status says how many were demoted. Every
 * refusal is still counted in /metrics. The keys are few (a fixed set of routes ×
 * HTTP statuses), so the map needs no bound.
 */
export class AccessLogThrottle {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly burst = 10,
    private readonly windowMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** `undefined`: log this refusal at debug; otherwise log it at info with `suppressed` (may be 0). */
  admit(route: string, status: number): { suppressed: number } | undefined {
    const key = `${status} ${route}`;
    const at = this.now();
    let window = this.#windows.get(key);
    if (!window) {
      window = { start: at, logged: 0, suppressed: 0 };
      this.#windows.set(key, window);
    } else if (at - window.start >= this.windowMs) {
      window.start = at;
      window.logged = 0;
    }
    if (window.logged >= this.burst) {
      window.suppressed += 1;
      return undefined;
    }
    window.logged += 1;
    const suppressed = window.suppressed;
    window.suppressed = 0;
    return { suppressed };
  }
}
