import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendsRequired, freeLoopbackPort, waitFor } from '@sightline/testkit';

// The OCI image built from the Dockerfile with buildah (daemonless, from Debian) and
// run: what an operator's `docker run` / Kubernetes pod does with it. No registry is
// reachable from CI, so the base is made locally (tools/image/build-image.sh,
// NODE_IMAGE=local: Debian bookworm + this machine's Node 20); set
// SIGHTLINE_TEST_NODE_IMAGE=node:20.19-bookworm-slim where the public image can be pulled.
const ROOT = path.resolve(import.meta.dirname, '../../..');
const TAG = 'localhost/sightline:e2e';
const BUILDAH = ['--storage-driver', process.env.BUILDAH_STORAGE_DRIVER ?? 'vfs'];

const onPath = (tool: string): boolean => (process.env.PATH ?? '').split(':').some((dir) => existsSync(path.join(dir, tool)));
const missing = ['buildah', 'debootstrap'].filter((tool) => !onPath(tool));
const skipReason =
  missing.length > 0
    ? `${missing.join(' and ')} not installed (apt-get install buildah debootstrap)`
    : process.getuid?.() !== 0
      ? 'building an image with buildah here needs root'
      : undefined;
if (skipReason) {
  if (backendsRequired()) throw new Error(`container image test: ${skipReason}, and SIGHTLINE_REQUIRE_BACKENDS=1 makes it mandatory`);
  console.warn(`[skip] container image test: ${skipReason}`);
}

const buildah = (...args: string[]): string => execFileSync('buildah', [...BUILDAH, ...args], { encoding: 'utf8' }).trim();

interface ImageConfig {
  User: string;
  Entrypoint: string[];
  Cmd: string[];
  Env: string[];
  ExposedPorts: Record<string, object>;
  StopSignal: string;
  WorkingDir: string;
}

/** The processes under `pid`, depth first (every thread's children: buildah forks from several). */
function descendants(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
  return children.flatMap((child) => [child, ...descendants(child)]);
}

describe.skipIf(skipReason !== undefined)('container image (buildah)', () => {
  let config: ImageConfig;
  let container: string;

  beforeAll(() => {
    execFileSync('bash', [path.join(ROOT, 'tools/image/build-image.sh'), TAG], {
      cwd: ROOT,
      env: { ...process.env, NODE_IMAGE: process.env.SIGHTLINE_TEST_NODE_IMAGE ?? 'local' },
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 15 * 60_000,
    });
    config = (JSON.parse(buildah('inspect', '--type', 'image', TAG)) as { OCIv1: { config: ImageConfig } }).OCIv1.config;
    console.log(`[figures] image ${TAG}: ${buildah('images', '--format', '{{.Size}}', TAG)}`);
    container = buildah('from', '--quiet', TAG);
  }, 16 * 60_000);

  afterAll(() => {
    if (container) buildah('rm', container);
    if (!skipReason) buildah('rmi', '--force', TAG);
  });

  it('runs the launcher as a fixed non-root user, --target=all by default, stopped by SIGTERM', () => {
    expect(config.User).toBe('10001:10001');
    // compiled JavaScript on plain node: no TypeScript loader at run time
    expect(config.Entrypoint).toEqual(['node', '--max-semi-space-size=64', 'apps/launcher/src/main.js']);
    expect(config.Cmd).toEqual(['--target=all']);
    expect(config.StopSignal).toBe('SIGTERM');
    expect(Object.keys(config.ExposedPorts).sort()).toEqual(['50051/tcp', '8080/tcp', '9464/tcp']);
    expect(config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'SIGHTLINE_DATA_DIR=/data', 'PORT=8080']));
  });

  it('holds production code only, compiled: no TypeScript, test files, test kit or build CA', () => {
    const root = buildah('mount', container);
    try {
      const app = path.join(root, 'app');
      const files = readdirSync(app, { recursive: true, encoding: 'utf8' }).filter((file) => !file.startsWith('node_modules/'));
      expect(files.filter((file) => file.endsWith('.ts'))).toEqual([]);
      expect(files.some((file) => file.startsWith('libs/testkit/') || file.includes('/test-support/'))).toBe(false);
      expect(files).toContain('apps/launcher/src/main.js');
      expect(files).toContain('apps/ingest/src/threads/pipeline-worker.js');
      // workspace packages resolve to the compiled files
      const eventStore = JSON.parse(readFileSync(path.join(app, 'libs/event-store/package.json'), 'utf8')) as { exports: Record<string, string> };
      expect(eventStore.exports['.']).toBe('./src/index.js');
      expect(files.some((file) => file.startsWith('tools/') || file === 'tsconfig.base.json')).toBe(false);
      expect(existsSync(path.join(app, 'node_modules/fastify'))).toBe(true);
      expect(existsSync(path.join(app, 'node_modules/vitest'))).toBe(false);
      // the dashboard: its build only (hashed, precompressed assets), not its sources
      expect(files).toContain('apps/dashboard/dist/manifest.json');
      expect(files.some((file) => file.startsWith('apps/dashboard/src/'))).toBe(false);
      // the proxy CA reached `npm ci` as a build secret, not as a file of the image
      expect(existsSync(path.join(root, 'run/secrets/npm_ca'))).toBe(false);
    } finally {
      buildah('umount', container);
    }
  });

  it('starts every service unprivileged, answers health and readiness and the tracker, and drains on SIGTERM', async () => {
    const port = await freeLoopbackPort();
    // INGEST_WORKERS=1: a worker thread starts on its compiled entry (start-up waits for it to be ready)
    const run: ChildProcess = spawn(
      'buildah',
      [
        ...BUILDAH,
        'run',
        '--isolation',
        'chroot',
        '--user',
        config.User,
        '--env',
        `PORT=${port}`,
        '--env',
        'GRPC_PORT=0',
        '--env',
        'METRICS_PORT=0',
        '--env',
        'INGEST_WORKERS=1',
        container,
        '--',
        ...config.Entrypoint,
        ...config.Cmd,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    run.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    run.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /Sightline is ready/.test(output) || run.exitCode !== null, 90_000).catch(() => {});
      expect(output, 'the container did not start').toMatch(/Sightline is ready/);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready' });
      const unknownKey = await fetch(`${base}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ k: 'Unknown0Key0000000000000', n: 'pageview', u: 'https://example.org/', d: 'example.org' }),
      });
      expect(unknownKey.status).toBe(404);
      expect(await unknownKey.json()).toMatchObject({ code: 'unknown_site' });
      // the dashboard's page and its script, served brotli from the build in the image
      const home = await fetch(`${base}/`);
      expect(home.status).toBe(200);
      const script = /<script type="module" src="(\/assets\/[^"]+\.js)">/.exec(await home.text())?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${base}${script}`, { headers: { 'accept-encoding': 'br' } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');

      // the node process itself (buildah run → chroot runtime → exec → node) runs as 10001
      const node = descendants(run.pid!).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node');
      expect(node).toBeDefined();
      expect(readFileSync(`/proc/${node}/status`, 'utf8')).toMatch(/^Uid:\s+10001\s/m);
      process.kill(node!, 'SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toMatch(/shutting down: draining in-flight requests/);
      expect(output).toMatch(/"msg":"stopped"/);
    } finally {
      if (run.exitCode === null) run.kill('SIGKILL');
    }
  }, 120_000);
});
