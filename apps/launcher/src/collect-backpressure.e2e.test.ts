import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '@sightline/bus';
import { loadConfig } from '@sightline/config';
import { startSmtpSink } from '@sightline/mailer/testing';
import { createLogger } from '@sightline/telemetry';
import { backendGate, makeTempDir, natsServerInstalled, startPrivateNatsServer, waitFor, type PrivateNatsServer } from '@sightline/testkit';
import { startSightline, type RunningSightline } from './start-sightline.js';
import { ApiClient, register } from './test-support/api-client.js';
import { startLoneGateway } from './test-support/lone-gateway.js';

// When an event cannot be queued, POST /api/event says so (503 `unavailable`,
// Retry-After) and stores nothing of it: never a 202 for an event that is not on
// the bus. Two causes: the in-process bus's stream at LOCAL_BUS_MAX_STREAM_BYTES
// (ingest down or behind), and a bus that cannot be reached.

const log = createLogger({ level: 'silent' });
const event = (k: string, i: number) =>
  JSON.stringify({ k, n: 'pageview', u: `https://shop.sightline-e2e.net/p/${i}`, d: 'shop.sightline-e2e.net', r: null, s: `tab-${i}` });
const send = (url: string, body: string) =>
  fetch(`${url}/api/event`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' },
  });

describe('POST /api/event when the events stream of the in-process bus is full', () => {
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let sightline: RunningSightline | undefined;
  let key = '';
  // room for about twenty collected events; the small SITES/SETTINGS messages of one site fit in it too
  const base = () => ({ SIGHTLINE_DATA_DIR: dataDir.path, PORT: '0', HOST: '127.0.0.1', LOCAL_BUS_MAX_STREAM_BYTES: '8192', INGEST_BATCH_MAX_DELAY_MS: '100' });
  const eventsHeld = async () => (await sightline!.bus!.streamState(STREAM_NAMES.events))!;

  beforeAll(async () => {
    dataDir = await makeTempDir();
    const smtp = await startSmtpSink();
    try {
      sightline = await startSightline({ config: loadConfig({ ...base(), SMTP_URL: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true` }), log, target: 'all' });
      const api = new ApiClient(sightline.url!);
      const owner = await register(api, smtp, `backpressure.${Date.now().toString(36)}@mail.sightline-e2e.net`);
      const site = await api.request<{ script_url: string }>('POST', '/api/v1/sites', { token: owner.token, body: { url: 'https://shop.sightline-e2e.net' } });
      expect(site.status).toBe(201);
      key = /\/js\/([A-Za-z0-9]+)\.js$/.exec(site.body.script_url)![1]!;
    } finally {
      await smtp.close();
    }
  }, 120_000);

  afterAll(async () => {
    await sightline?.stop();
    await dataDir?.remove();
  });

  it('answers 503 unavailable with Retry-After once ingest stops taking events, and stores nothing of the refused ones', async () => {
    // ingest down: taken out of the list `stop` walks, so it is stopped once
    const [ingest] = sightline!.services.splice(
      sightline!.services.findIndex((service) => service.name === 'ingest'),
      1,
    );
    await ingest!.stop(0);
    const before = await eventsHeld();
    const statuses: number[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 200 && !refusal; i += 1) {
      const answer = await send(sightline!.url!, event(key, i));
      statuses.push(answer.status);
      if (answer.status !== 202) refusal = answer;
    }
    expect(refusal?.status).toBe(503);
    expect(refusal!.headers.get('retry-after')).toBe('5');
    expect(await refusal!.json()).toEqual({
      code: 'unavailable',
      error: 'Collection is paused: the backlog of events waiting for ingestion is full. Retry later.',
      request_id: refusal!.headers.get('x-request-id'),
    });
    const accepted = statuses.filter((status) => status === 202).length;
    expect(accepted).toBeGreaterThan(10);
    // every 202 is on the stream, the refused event is not
    const after = await eventsHeld();
    expect(after.lastSeq - before.lastSeq).toBe(accepted);
    expect(after.messages).toBe(before.messages + accepted);
    // still full: the next one is refused too, and the process keeps serving
    expect((await send(sightline!.url!, event(key, 999))).status).toBe(503);
    expect((await fetch(`${sightline!.url}/healthz`)).status).toBe(200);
  });

  it('takes events again once ingest has stored the backlog (restarted, same limit)', async () => {
    const held = (await eventsHeld()).messages;
    expect(held).toBeGreaterThan(10);
    await sightline!.stop();
    sightline = await startSightline({ config: loadConfig(base()), log, target: 'all' });
    // ingest drains what the journal kept through the restart; acked only once stored
    await waitFor(async () => (await eventsHeld()).messages === 0, 60_000);
    const storedPages = async () =>
      Number(
        (await sightline!.events!.query<{ n: string }>('SELECT toString(count()) AS n FROM events WHERE pathname LIKE {prefix:String}', { prefix: '/p/%' }))[0]!
          .n,
      );
    // each accepted event once: the backlog, then one more
    expect(await storedPages()).toBe(held);
    expect((await send(sightline.url!, event(key, 1000))).status).toBe(202);
    await waitFor(async () => (await storedPages()) === held + 1, 30_000);
  }, 120_000);
});

const natsGate = await backendGate('nats');
// the server is stopped mid-test: only a private one, never the shared server other suites use
const privateNats = natsServerInstalled();
if (natsGate.available && !privateNats)
  console.warn('[skip] POST /api/event with NATS gone: no nats-server binary to start a private server (the shared one cannot be stopped)');

describe.skipIf(!natsGate.available || !privateNats)('POST /api/event when NATS cannot be reached (gateway alone)', () => {
  let nats: PrivateNatsServer;
  let dataDir: Awaited<ReturnType<typeof makeTempDir>>;
  let gateway: RunningSightline | undefined;

  beforeAll(async () => {
    nats = await startPrivateNatsServer();
    dataDir = await makeTempDir();
    // the services' addresses answer nothing: the tracking-key check cannot ask, so events are accepted and ingest decides
    gateway = await startLoneGateway(nats.url, dataDir.path);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await nats?.stop();
    await dataDir?.remove();
  });

  it('answers 202 while the server is up and 503 unavailable once it is gone, never 5xx internal', async () => {
    expect((await send(gateway!.url!, event('Unchecked0Key00000000000', 1))).status).toBe(202);
    await nats.stop();
    const refusal = await send(gateway!.url!, event('Unchecked0Key00000000000', 2));
    expect(refusal.status).toBe(503);
    expect(refusal.headers.get('retry-after')).toBe('5');
    expect(await refusal.json()).toMatchObject({ code: 'unavailable', error: 'The event could not be queued for ingestion. Retry later.' });
  }, 60_000);
});
