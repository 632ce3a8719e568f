import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendGate, waitFor } from '@sightline/testkit';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { freshIp, register } from './test-support/api-client.js';

// A chunked import upload past IMPORT_MAX_BYTES (no Content-Length to refuse it up
// front) is counted while it streams and refused with 413; the refused body must not
// grow the process (before the fix, staging it in the events engine kept ~300 MB
// more resident memory) and the job record names the limit. Its own file: it
// measures this process's memory.
const pgGate = await backendGate('postgres');
const MB = 2 ** 20;
const MAX_BYTES = 16 * MB;
/** Resident memory the refused upload may leave behind: generous (allocator slack, GC timing), far below the engine's cost. */
const RSS_GROWTH_BOUND_MB = 100;

const rssMb = () => Math.round(process.memoryUsage().rss / MB);

/** Sends `total` bytes of valid NDJSON chunked, honouring backpressure; resolves with the answer. */
function chunkedUpload(base: string, path: string, headers: Record<string, string>, total: number): Promise<string> {
  const url = new URL(base);
  let block = '';
  for (let i = 0; block.length < 65_000; i += 1)
    block += `${JSON.stringify({ timestamp: new Date(Date.UTC(2024, 2, 1) + i * 1000).toISOString(), name: 'pageview', visitor_id: `v${i}`, pathname: '/' })}\n`;
  const chunk = Buffer.from(`${Buffer.byteLength(block).toString(16)}\r\n${block}\r\n`);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ntransfer-encoding: chunked\r\n${Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('')}\r\n`,
      );
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += block.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.write('0\r\n\r\n');
      };
      pump();
    });
    socket.setTimeout(120_000, () => socket.destroy());
    socket.on('data', (data: Buffer) => {
      received += data.toString('utf8');
      if (received.includes('\r\n\r\n{')) socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}

describe.skipIf(!pgGate.available)('a chunked import upload over IMPORT_MAX_BYTES', () => {
  let server: E2eServer;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_imports_limit_e2e' },
      env: { IMPORT_MAX_BYTES: String(MAX_BYTES), DEFAULT_TIMEZONE: 'UTC' },
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('answers 413, keeps no memory, and its job names the limit', async () => {
    const api = server.api.withIp(freshIp());
    const who = await register(api, server.smtp, `limit.${Date.now().toString(36)}@mail.sightline-e2e.net`);
    const site = await api.request<{ site_id: number }>('POST', '/api/v1/sites', {
      token: who.token,
      body: { url: `https://limit-${Date.now().toString(36)}.sightline-e2e.net` },
    });
    const headers = { authorization: `Bearer ${who.token}`, 'content-type': 'application/x-ndjson', 'x-forwarded-for': freshIp() };

    const before = rssMb();
    const answer = await chunkedUpload(server.sightline.url!, `/api/v1/sites/${site.body.site_id}/imports`, headers, 1.5 * MAX_BYTES);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    type Job = { status: string; failure: string | null };
    let job: Job | undefined;
    await waitFor(async () => {
      job = (await api.request<{ imports: Job[] }>('GET', `/api/v1/sites/${site.body.site_id}/imports`, { token: who.token })).body.imports[0];
      return job?.status === 'failed' || job?.status === 'completed';
    }, 60_000);
    const after = rssMb();
    console.info(`RSS around a refused ${(1.5 * MAX_BYTES) / MB} MB chunked upload (limit ${MAX_BYTES / MB} MB): ${before} MB before, ${after} MB after`);
    expect(job).toMatchObject({
      status: 'failed',
      failure: `upload exceeds IMPORT_MAX_BYTES (${MAX_BYTES} bytes); nothing was imported. Split the history into several imports.`,
    });
    expect(after - before).toBeLessThan(RSS_GROWTH_BOUND_MB);
  }, 300_000);
});
