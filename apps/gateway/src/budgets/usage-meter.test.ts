import { Server, ServerCredentials, status as GrpcStatus, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '@sightline/errors';
import { createClient } from '@sightline/grpc-kit';
import { identityV1 } from '@sightline/proto';
import { createLogger } from '@sightline/telemetry';
import type { Principal } from '../auth/key-cache.js';
import { UsageMeter } from './usage-meter.js';

// The meter against a real gRPC ReportUsage endpoint that sums every replica's
// deltas per window, as identity does (identity's own tests cover its SQL). Two
// meters sharing it are two gateway replicas.
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);

class UsageLedger {
  totals = new Map<string, number>();
  reports: identityV1.ReportUsageRequest[] = [];
  failNext = 0;
  /** when set, the next report is answered only once this resolves (a slow round trip) */
  holdNext: Promise<void> | undefined;

  handle(call: ServerUnaryCall<identityV1.ReportUsageRequest, identityV1.ReportUsageResponse>, callback: sendUnaryData<identityV1.ReportUsageResponse>): void {
    if (this.failNext > 0) {
      this.failNext -= 1;
      callback({ code: GrpcStatus.UNAVAILABLE, details: 'down for the test' });
      return;
    }
    if (this.holdNext) {
      const held = this.holdNext;
      this.holdNext = undefined;
      void held.then(() => this.handle(call, callback));
      return;
    }
    const request = call.request;
    this.reports.push(request);
    const totals = request.deltas.map(({ bucket, count }) => {
      const key = `${request.windowStart}|${bucket}`;
      this.totals.set(key, (this.totals.get(key) ?? 0) + count);
      return { bucket, count: this.totals.get(key)! };
    });
    callback(null, { windowStart: request.windowStart, totals });
  }
}

const principal = (keyId: string, accountId = 1): Principal =>
  ({ keyId, accountId, permissions: ['stats:read'], expiresAt: '2027-01-01T00:00:00Z' }) as Principal;

function rateLimited(run: () => void): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected 429 rate_limited');
}

describe('UsageMeter', () => {
  const ledger = new UsageLedger();
  const server = new Server();
  let client: identityV1.IdentityServiceClient;
  let now = T0;
  const clock = () => now;
  const log = createLogger({ level: 'silent' });

  beforeAll(async () => {
    server.addService(identityV1.IdentityServiceService, { reportUsage: ledger.handle.bind(ledger) } as never);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    client = createClient(identityV1.IdentityServiceClient, `127.0.0.1:${port}`);
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  beforeEach(() => {
    ledger.totals.clear();
    ledger.reports = [];
    ledger.failNext = 0;
    ledger.holdNext = undefined;
    now = T0 + 15 * 60_000; // 10:15, 45 minutes left in the window
  });

  it('admits exactly the key budget, then answers 429 naming it with the seconds left in the hour', () => {
    const meter = new UsageMeter(client, { key: 3, account: 100, write: 100 }, log, clock);
    for (let i = 0; i < 3; i += 1) meter.admit(principal('key_a'), false);
    const error = rateLimited(() => meter.admit(principal('key_a'), false));
    expect(error.code).toBe('rate_limited');
    expect(error.message).toContain('api key budget');
    expect(error.details.retryAfterSeconds).toBe(45 * 60);
    // another key of the same account still has its own budget
    expect(() => meter.admit(principal('key_b'), false)).not.toThrow();
  });

  it('counts writes only against the write budget, and every request against the account', () => {
    const meter = new UsageMeter(client, { key: 100, account: 4, write: 2 }, log, clock);
    meter.admit(principal('key_a'), true);
    meter.admit(principal('key_b'), true);
    expect(rateLimited(() => meter.admit(principal('key_c'), true)).message).toContain('write budget');
    meter.admit(principal('key_c'), false); // reads still pass: account at 3 of 4
    meter.admit(principal('key_c'), false); // 4 of 4
    expect(rateLimited(() => meter.admit(principal('key_d'), false)).message).toContain('account budget');
  });

  it('a refused request is not counted', async () => {
    const meter = new UsageMeter(client, { key: 2, account: 100, write: 100 }, log, clock);
    meter.admit(principal('key_a'), false);
    meter.admit(principal('key_a'), false);
    for (let i = 0; i < 5; i += 1) rateLimited(() => meter.admit(principal('key_a'), false));
    await meter.sync();
    expect(ledger.totals.get(`${new Date(T0).toISOString()}|key:key_a`)).toBe(2);
  });

  it('two replicas share the budget through the sync: each admits against the sum', async () => {
    const limits = { key: 10, account: 100, write: 100 };
    const replicaA = new UsageMeter(client, limits, log, clock);
    const replicaB = new UsageMeter(client, limits, log, clock);
    for (let i = 0; i < 4; i += 1) replicaA.admit(principal('key_a'), false);
    for (let i = 0; i < 3; i += 1) replicaB.admit(principal('key_a'), false);
    await replicaA.sync(); // ledger: 4
    await replicaB.sync(); // ledger: 7; B learns 7
    await replicaA.sync(); // A learns 7 (sends a zero delta for the bucket it knows)
    // 7 used of 10: A admits 3 more, the 4th is refused, although A itself counted only 7
    for (let i = 0; i < 3; i += 1) replicaA.admit(principal('key_a'), false);
    expect(rateLimited(() => replicaA.admit(principal('key_a'), false)).code).toBe('rate_limited');
    await replicaA.sync(); // ledger: 10
    await replicaB.sync();
    expect(rateLimited(() => replicaB.admit(principal('key_a'), false)).code).toBe('rate_limited');
    expect(ledger.totals.get(`${new Date(T0).toISOString()}|key:key_a`)).toBe(10);
  });

  it('counts what a report in flight carries: a request admitted during the round trip sees it', async () => {
    const meter = new UsageMeter(client, { key: 5, account: 100, write: 100 }, log, clock);
    for (let i = 0; i < 5; i += 1) meter.admit(principal('key_a'), false);
    let answer!: () => void;
    ledger.holdNext = new Promise((resolve) => (answer = resolve));
    const syncing = meter.sync();
    // the 5 are on their way to identity, not yet known: the 6th is still refused
    expect(rateLimited(() => meter.admit(principal('key_a'), false)).message).toContain('api key budget');
    answer();
    await syncing;
    expect(rateLimited(() => meter.admit(principal('key_a'), false)).message).toContain('api key budget');
    expect(ledger.totals.get(`${new Date(T0).toISOString()}|key:key_a`)).toBe(5);
  });

  it('keeps counts across a failed sync and reports them on the next one', async () => {
    const meter = new UsageMeter(client, { key: 100, account: 100, write: 100 }, log, clock);
    for (let i = 0; i < 5; i += 1) meter.admit(principal('key_a'), false);
    ledger.failNext = 1;
    await meter.sync();
    expect(ledger.reports).toHaveLength(0);
    meter.admit(principal('key_a'), false);
    await meter.sync();
    expect(ledger.totals.get(`${new Date(T0).toISOString()}|key:key_a`)).toBe(6);
    expect(ledger.totals.get(`${new Date(T0).toISOString()}|account:1`)).toBe(6);
  });

  it('starts every hour afresh and reports under the new window', async () => {
    const meter = new UsageMeter(client, { key: 2, account: 100, write: 100 }, log, clock);
    meter.admit(principal('key_a'), false);
    meter.admit(principal('key_a'), false);
    rateLimited(() => meter.admit(principal('key_a'), false));
    now = T0 + HOUR; // 11:00
    meter.admit(principal('key_a'), false);
    await meter.sync();
    expect(ledger.reports.map((r) => r.windowStart)).toEqual([new Date(T0 + HOUR).toISOString()]);
    expect(ledger.totals.get(`${new Date(T0 + HOUR).toISOString()}|key:key_a`)).toBe(1);
  });

  it('does not call identity when nothing was counted', async () => {
    const meter = new UsageMeter(client, { key: 2, account: 100, write: 100 }, log, clock);
    await meter.sync();
    expect(ledger.reports).toHaveLength(0);
  });
});
