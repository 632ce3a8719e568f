import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { LocalBus, SUBJECTS, type SubjectPayloads } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import type { Db } from '@sightline/db';
import { callUnary } from '@sightline/grpc-kit';
import { FileOutboxMailer, type Mailer } from '@sightline/mailer';
import { parseMessage } from '@sightline/mailer/testing';
import { identityV1 } from '@sightline/proto';
import { startIdentity } from '../start-identity.js';
import { captureLog, makeTempDir, movableClock, serveOnLoopback, testCallOptions, type MovableClock } from '@sightline/testkit';

export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef-0123456789';
export const TERMS_VERSION = '2026-11-01';

type Revoked = SubjectPayloads[typeof SUBJECTS.keysRevoked];

export interface IdentityHarness {
  rpc: ReturnType<typeof rpcClient>;
  db: Db;
  time: MovableClock;
  /** every keys.revoked broadcast seen, in order */
  revoked: Revoked[];
  /** every log line the service wrote */
  logLines: string[];
  mailDir: string;
  /** the newest mail sent to `to`, as a mail client shows it */
  lastMailTo(to: string): Promise<{ subject: string; text: string } | undefined>;
  /** the six-digit code of the newest mail to `to` */
  codeFor(to: string): Promise<string>;
  /** how many mails went to `to` */
  mailCount(to: string): Promise<number>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  db: Db;
  start?: string;
  env?: Record<string, string>;
  janitorIntervalMs?: number;
  /** replaces the file outbox (e.g. one that cannot deliver) */
  mailer?: Mailer;
}

/** Typed calls to a real IdentityService over gRPC (what the gateway does). */
function rpcClient(client: identityV1.IdentityServiceClient) {
  const options = testCallOptions(20_000);
  return {
    sendOtp: (r: identityV1.SendOtpRequest) => callUnary(client, client.sendOtp, 'Identity/SendOtp', r, options()),
    verifyOtp: (r: identityV1.VerifyOtpRequest) => callUnary(client, client.verifyOtp, 'Identity/VerifyOtp', r, options()),
    verifyKey: (r: identityV1.VerifyKeyRequest) => callUnary(client, client.verifyKey, 'Identity/VerifyKey', r, options()),
    listKeys: (r: identityV1.ListKeysRequest) => callUnary(client, client.listKeys, 'Identity/ListKeys', r, options()),
    createKey: (r: identityV1.CreateKeyRequest) => callUnary(client, client.createKey, 'Identity/CreateKey', r, options()),
    rotateKey: (r: identityV1.RotateKeyRequest) => callUnary(client, client.rotateKey, 'Identity/RotateKey', r, options()),
    revokeKey: (r: identityV1.RevokeKeyRequest) => callUnary(client, client.revokeKey, 'Identity/RevokeKey', r, options()),
    setSubscription: (r: identityV1.SetSubscriptionRequest) => callUnary(client, client.setSubscription, 'Identity/SetSubscription', r, options()),
    getPlan: (r: identityV1.GetPlanRequest) => callUnary(client, client.getPlan, 'Identity/GetPlan', r, options()),
    startTrial: (r: identityV1.StartTrialRequest) => callUnary(client, client.startTrial, 'Identity/StartTrial', r, options()),
    reportUsage: (r: identityV1.ReportUsageRequest) => callUnary(client, client.reportUsage, 'Identity/ReportUsage', r, options()),
    findAccount: (r: identityV1.FindAccountRequest) => callUnary(client, client.findAccount, 'Identity/FindAccount', r, options()),
    describeAccounts: (r: identityV1.DescribeAccountsRequest) => callUnary(client, client.describeAccounts, 'Identity/DescribeAccounts', r, options()),
    startWebSession: (r: identityV1.StartWebSessionRequest) => callUnary(client, client.startWebSession, 'Identity/StartWebSession', r, options()),
    verifyWebSession: (r: identityV1.VerifyWebSessionRequest) => callUnary(client, client.verifyWebSession, 'Identity/VerifyWebSession', r, options()),
    revokeWebSession: (r: identityV1.RevokeWebSessionRequest) => callUnary(client, client.revokeWebSession, 'Identity/RevokeWebSession', r, options()),
    revokeAllWebSessions: (r: identityV1.RevokeAllWebSessionsRequest) =>
      callUnary(client, client.revokeAllWebSessions, 'Identity/RevokeAllWebSessions', r, options()),
  };
}

/**
 * The identity service for real: its module's services on a gRPC server on
 * 127.0.0.1, the given database, a `.eml` outbox, an in-memory bus and a movable clock.
 */
export async function startIdentityHarness(options: HarnessOptions): Promise<IdentityHarness> {
  const mailTemp = await makeTempDir('sightline-identity-mail-');
  const mailDir = path.join(mailTemp.path, 'mail');
  const mailer = options.mailer ?? new FileOutboxMailer({ dir: mailDir, from: 'Sightline <no-reply@sightline.test>' });
  const bus = new LocalBus();
  const revoked: Revoked[] = [];
  const subscription = await bus.subscribe(SUBJECTS.keysRevoked, (data) => void revoked.push(data));
  const { log, lines: logLines } = captureLog('identity');
  const time = movableClock(options.start ?? '2026-03-02T10:00:00.000Z');
  const config = loadConfig({ SECRET_KEY: TEST_SECRET_KEY, TERMS_VERSION, PUBLIC_URL: 'https://sightline.test', ...options.env });

  const served = await serveOnLoopback({
    name: 'identity',
    log,
    start: () => startIdentity({ config, log, clock: time.clock, db: options.db, bus, mailer }, { janitorIntervalMs: options.janitorIntervalMs }),
    client: identityV1.IdentityServiceClient,
  });

  const mailsTo = async (to: string) => {
    const names = (await readdir(mailDir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort();
    const mails = await Promise.all(names.map(async (n) => parseMessage(await readFile(path.join(mailDir, n)))));
    return mails.filter((m) => m.headers.get('to') === to).map((m) => ({ subject: m.headers.get('subject') ?? '', text: m.text }));
  };
  const lastMailTo = async (to: string) => (await mailsTo(to)).at(-1);

  return {
    rpc: rpcClient(served.client),
    db: options.db,
    time,
    revoked,
    logLines,
    mailDir,
    lastMailTo,
    mailCount: async (to) => (await mailsTo(to)).length,
    codeFor: async (to) => {
      const code = /\b(\d{6})\b/.exec((await lastMailTo(to))?.text ?? '')?.[1];
      if (!code) throw new Error(`no code mailed to ${to}`);
      return code;
    },
    close: async () => {
      await served.close();
      await subscription.stop();
      await bus.close();
      await mailer.close();
      await mailTemp.remove();
    },
  };
}

let ipCounter = 0;
/** A client address no other test has used, so per-IP limits never leak between tests. */
export function freshClient(userAgent = 'identity-test/1.0'): identityV1.ClientInfo {
  ipCounter += 1;
  return { ip: `10.${(process.pid >> 8) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`, userAgent };
}

let emailCounter = 0;
export function freshEmail(tag = 'user'): string {
  emailCounter += 1;
  return `${tag}${emailCounter}.${process.pid}@mail.sightline-test.com`;
}

/**
 * Registers an address the way a person would: send-otp, read the code from the
 * mail, verify-otp. Returns the answer and the principal of the key.
 */
export async function register(h: IdentityHarness, email = freshEmail(), overrides: Partial<identityV1.VerifyOtpRequest> = {}) {
  const client = overrides.client ?? freshClient();
  const sent = await h.rpc.sendOtp({ email, client });
  const code = await h.codeFor(sent.email); // mailed to the normalized address
  const answer = await h.rpc.verifyOtp({
    email,
    code,
    acceptTerms: true,
    keyName: 'first key',
    permissions: [],
    permissionsGiven: false,
    client,
    ...overrides,
  });
  const { principal } = await h.rpc.verifyKey({ token: answer.token });
  return { email, answer, token: answer.token, principal: principal! };
}
