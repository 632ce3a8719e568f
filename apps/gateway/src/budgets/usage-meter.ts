import { ApiError } from '@sightline/errors';
import { callUnary } from '@sightline/grpc-kit';
import type { identityV1 } from '@sightline/proto';
import { inUnsampledRoot, type Logger } from '@sightline/telemetry';
import type { Principal } from '../auth/key-cache.js';

export interface BudgetLimits {
  /** write requests per account per hour */
  write: number;
  /** authenticated requests per account per hour */
  account: number;
  /** authenticated requests per API key per hour */
  key: number;
}

const HOUR_MS = 3_600_000;

type BudgetName = 'write' | 'account' | 'api key';

/**
 * The hourly budgets (write, account, api key), shared by every gateway replica.
 *
 * Counting every request against a shared store would put a database write on
 * every API call. Instead each replica admits against (the totals it last learned
 * + what it has counted since), and every `syncIntervalMs` reports its new counts
 * to identity, which sums all replicas and answers the totals. A budget can thus be
 * overshot by at most one sync interval's traffic per replica — the price of
 * keeping the check off the request path's critical I/O.
 */
export class UsageMeter {
  private window = 0;
  private readonly known = new Map<string, number>();
  private pending = new Map<string, number>();
  /** counts sent to identity whose totals have not come back yet: still counted by admit */
  private reporting = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly identity: identityV1.IdentityServiceClient,
    private readonly limits: BudgetLimits,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(syncIntervalMs: number): void {
    this.timer = setInterval(() => void this.sync(), syncIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }

  /** Counts one request, or throws 429 `rate_limited` naming the exhausted budget. */
  admit(principal: Principal, isWrite: boolean): void {
    const now = this.now();
    this.rollWindow(now);
    const checks: Array<[string, number, BudgetName]> = [
      [`key:${principal.keyId}`, this.limits.key, 'api key'],
      [`account:${principal.accountId}`, this.limits.account, 'account'],
    ];
    if (isWrite) checks.push([`write:${principal.accountId}`, this.limits.write, 'write']);
    for (const [bucket, limit, name] of checks) {
      if ((this.known.get(bucket) ?? 0) + (this.reporting.get(bucket) ?? 0) + (this.pending.get(bucket) ?? 0) >= limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((this.window + HOUR_MS - now) / 1000));
        throw new ApiError('rate_limited', `The hourly ${name} budget is exhausted (${limit} requests per hour); retry after ${retryAfterSeconds} s.`, {
          retryAfterSeconds,
        });
      }
    }
    for (const [bucket] of checks) this.pending.set(bucket, (this.pending.get(bucket) ?? 0) + 1);
  }

  /** Reports new counts and learns the totals of every bucket seen this window. */
  sync(): Promise<void> {
    // housekeeping, not a request: its calls join no trace and start none (every second)
    this.syncing ??= inUnsampledRoot(() => this.report()).finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async report(): Promise<void> {
    this.rollWindow(this.now());
    if (this.known.size === 0 && this.pending.size === 0) return;
    const window = this.window;
    const sent = this.pending;
    this.pending = new Map();
    // while the report is on its way, its counts are neither known nor pending: without
    // this, a request admitted during the round trip would not see them (a budget overshot)
    this.reporting = sent;
    const buckets = new Set([...this.known.keys(), ...sent.keys()]);
    const deltas = [...buckets].map((bucket) => ({ bucket, count: sent.get(bucket) ?? 0 }));
    try {
      const answer = await callUnary(
        this.identity,
        this.identity.reportUsage,
        'Identity/ReportUsage',
        { windowStart: new Date(window).toISOString(), deltas },
        { requestId: 'usage-sync', deadlineMs: 5_000 },
      );
      if (window !== this.window) return; // the hour turned meanwhile: these totals are history
      for (const total of answer.totals) this.known.set(total.bucket, total.count);
    } catch (error) {
      // keep the counts for the next attempt; meanwhile admit on what we know
      if (window === this.window) for (const [bucket, count] of sent) this.pending.set(bucket, (this.pending.get(bucket) ?? 0) + count);
      this.log.warn({ err: error }, 'usage sync failed; budgets enforced on local counts until it recovers');
    } finally {
      // the totals now include them (or they are pending again, or the hour turned)
      if (this.reporting === sent) this.reporting = new Map();
    }
  }

  private rollWindow(now: number): void {
    const window = now - (now % HOUR_MS);
    if (window === this.window) return;
    this.window = window;
    this.known.clear();
    this.pending.clear();
    this.reporting = new Map();
  }
}
