import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { connectNatsBus, LocalBus, STREAM_NAMES } from '@sightline/bus';
import { SERVICE_NAMES, type ServiceName } from '@sightline/runtime';
import {
  createTestDatabase,
  DEFAULT_BACKEND_URLS,
  freeLoopbackPort,
  isolatedNats,
  makeTempDir,
  startLauncherProcess,
  type LauncherProcess,
} from '@sightline/testkit';
import { NO_BUDGETS, registerViaOutbox } from './auth.js';
import { processCpuSeconds } from './machine-cpu.js';
import { median } from './run-rates.js';

const CONNECTIONS = 50;
const SECONDS = 8;
/**
 * Rounds of (bare, Sightline), each load ROUND_SECONDS: this VM's speed moves by tens of
 * per cent from one minute to the next, so one pair can land on either side of the
 * target by chance; the figures are the medians of the rounds, each round's ratio shown.
 */
const ROUNDS = Number(process.env.BENCH_COLLECT_ROUNDS ?? 3);
const ROUND_SECONDS = 6;
/** Before the measured load: JIT, caches, and ingest's lazily loaded engines (chDB, geo data) in `npm start`. */
const WARM_UP_SECONDS = 3;
const ROOT = path.resolve(import.meta.dirname, '../..');
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
/** Node's flags for a Sightline process, as `npm start` and the image give them (the bare reference gets them too). */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=64'];

interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A script of this folder (or the launcher) as a child process, ready once it prints `listening <url>` or `running at <url>`. */
async function startScript(
  script: string,
  { args = [], env = {}, nodeArgs = [] }: { args?: string[]; env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<Server> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(script)} not ready:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(?:listening|running at) (http:\/\/\S+)/.exec(output) ?? (/service is ready/.test(output) ? ['', 'grpc'] : null);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`${path.basename(script)} exited before it was ready:\n${output}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Drives the server for `seconds`; `cpuUsPerRequest`: the server process's CPU per answered request (robust to busy neighbours, unlike req/s). */
async function load(server: Server, body: string, seconds = SECONDS) {
  const cpuBefore = processCpuSeconds(server.pid);
  const result = await autocannon({
    url: `${server.url}/api/event`,
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': USER_AGENT },
    body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const answered = result['2xx'] + result.non2xx;
  return {
    cpuUsPerRequest: Math.round(((processCpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(answered, 1)),
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    accepted: result['2xx'],
    other: result.non2xx + result.errors + result.timeouts,
    // requests still unanswered when the load stopped: published or not, their 202 was never counted
    inFlight: result.requests.sent - result['2xx'] - result.non2xx,
  };
}

/**
 * Waits until the process has gone quiet (under 10 % of a core over a quarter second,
 * at most 30 s): in `npm start` ingest keeps working off the events of the load before,
 * on the same cores as the next load, which would slow whichever comes next.
 */
async function quiet(pid: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const before = processCpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (processCpuSeconds(pid) - before < 0.025) return;
  }
}

/** A site of a fresh account, created through the API as a customer would; its tracker body. */
async function trackerBody(url: string, dataDir: string): Promise<{ body: string; unknownKeyBody: string }> {
  const { token } = await registerViaOutbox({ url } as LauncherProcess, dataDir);
  const created = await fetch(`${url}/api/v1/sites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://shop.sightline-bench.net' }),
  });
  const { script_url } = (await created.json()) as { script_url: string };
  // the tracking key is the script's file name
  const key = /([A-Za-z0-9]+)\.js$/.exec(script_url)![1]!;
  const body = JSON.stringify({
    k: key,
    n: 'pageview',
    u: 'https://shop.sightline-bench.net/pricing',
    d: 'shop.sightline-bench.net',
    r: 'https://news.example.net/',
    s: 'tab-1',
  });
  return { body, unknownKeyBody: body.replace(key, 'Unknown0Key0000000000000') };
}

interface Composition {
  label: string;
  /** starts it; `count` reads how many messages EVENTS_WQ ever stored, once it stopped */
  start(dataDir: string): Promise<{ server: Server; count: () => Promise<number | undefined>; cleanup?: () => Promise<void> }>;
}

/** Messages ever stored in EVENTS_WQ of a local journal (its last sequence number survives compaction). */
async function localJournalCount(dataDir: string): Promise<number> {
  const bus = new LocalBus({ journalDir: path.join(dataDir, 'bus') });
  try {
    return (await bus.streamState(STREAM_NAMES.events))?.lastSeq ?? 0;
  } finally {
    await bus.close();
  }
}

const nodeArgs = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];

const COMPOSITIONS: Composition[] = [
  {
    label: '(a) `npm start`: collection while ingest consumes, local journal',
    start: async (dataDir) => {
      // BENCH_CPU_PROF_DIR=<dir>: the launcher writes a V8 CPU profile there on exit (open in Chrome DevTools)
      const launcher = await startLauncherProcess({ env: { SIGHTLINE_DATA_DIR: dataDir, ...NO_BUDGETS }, nodeArgs: [...SERVER_NODE_FLAGS, ...nodeArgs] });
      return {
        server: { url: launcher.url, pid: launcher.child.pid!, stop: async () => void (await launcher.stop('SIGTERM')) },
        count: () => localJournalCount(dataDir),
      };
    },
  },
  {
    label: '(b) gateway alone (one process, ingest stopped), local journal',
    start: async (dataDir) => {
      const server = await startScript(path.join(import.meta.dirname, 'collect-without-ingest-server.ts'), {
        env: { SIGHTLINE_DATA_DIR: dataDir, ...NO_BUDGETS },
        nodeArgs,
      });
      return { server, count: () => localJournalCount(dataDir) };
    },
  },
  {
    label: '(c) --target=gateway, NATS JetStream',
    start: async (dataDir) => {
      // a private nats-server: stream names are the product's, a shared server would mix other runs' events in
      const nats = await isolatedNats(process.env.TEST_NATS_URL ?? DEFAULT_BACKEND_URLS.nats);
      const database = await createTestDatabase(process.env.TEST_DATABASE_URL ?? DEFAULT_BACKEND_URLS.postgres, 'sightline_bench_collect');
      const ports = new Map<ServiceName, number>();
      for (const name of SERVICE_NAMES) ports.set(name, await freeLoopbackPort());
      // collection and the site set-up only need identity and sites; the other addresses stay unanswered (channels connect lazily)
      const env: Record<string, string> = {
        ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name.toUpperCase().replace('-', '_')}_GRPC_ADDR`, `127.0.0.1:${ports.get(name)}`])),
        ...NO_BUDGETS,
        DATABASE_URL: database.url,
        NATS_URL: nats.url,
        SIGHTLINE_DATA_DIR: dataDir,
        MAIL_OUTBOX_DIR: path.join(dataDir, 'mail'),
        SECRET_KEY: 'collect-bench-secret-key-0123456789abcdef',
        GRPC_HOST: '127.0.0.1',
      };
      const launcher = path.join(ROOT, 'apps/launcher/src/main.ts');
      const services: Server[] = [];
      const cleanup = async () => {
        await Promise.all(services.map((s) => s.stop()));
        await database.drop();
        await nats.stop();
      };
      try {
        for (const name of ['identity', 'sites'] as const) {
          services.push(await startScript(launcher, { args: [`--target=${name}`], env: { ...env, GRPC_PORT: String(ports.get(name)), LOG_LEVEL: 'info' } }));
        }
        const gateway = await startScript(launcher, { args: ['--target=gateway'], env: { ...env, HOST: '127.0.0.1' }, nodeArgs });
        const count = async () => {
          // on the shared server (no nats-server binary) other runs publish to and consume from the same stream
          if (!nats.isPrivate) return undefined;
          const bus = await connectNatsBus(nats.url);
          try {
            return (await bus.streamState(STREAM_NAMES.events))?.lastSeq ?? 0;
          } finally {
            await bus.close();
          }
        };
        return { server: gateway, count, cleanup };
      } catch (error) {
        await cleanup();
        throw error;
      }
    },
  },
];

/**
 * POST /api/event as the tracker sends it (text/plain JSON, a known site's key, each
 * accepted event durably queued) in three compositions and, in the same run, a bare
 * fastify endpoint that only parses the same body: the ratio is what Sightline's
 * edge keeps of raw fastify. Also an unknown key (refused from the cache). After each
 * composition stops, the events its bus stored are counted against the 202s.
 */
export async function benchCollect(): Promise<Record<string, string | number>> {
  const figures: Record<string, string | number> = {};
  // the reference runs through the whole bench and is measured right before each composition:
  // on a shared machine the load of the neighbours changes from one minute to the next
  const bare = await startScript(path.join(import.meta.dirname, 'bare-collect-server.ts'));
  try {
    const sample = JSON.stringify({
      k: 'Bench0Key000000000000000',
      n: 'pageview',
      u: 'https://shop.sightline-bench.net/pricing',
      d: 'shop.sightline-bench.net',
      r: 'https://news.example.net/',
      s: 'tab-1',
    });
    await load(bare, sample, WARM_UP_SECONDS);
    // BENCH_COLLECT_ONLY="(b)": one composition only (a part of its label)
    const only = process.env.BENCH_COLLECT_ONLY;
    for (const composition of COMPOSITIONS) {
      if (only && !composition.label.includes(only)) continue;
      const dir = await makeTempDir('sightline-bench-collect-');
      const { server, count, cleanup } = await composition.start(dir.path);
      let stopped = false;
      try {
        const { body, unknownKeyBody } = await trackerBody(server.url, dir.path);
        const warmUp = await load(server, body, WARM_UP_SECONDS);
        const rounds: { bare: Awaited<ReturnType<typeof load>>; sightline: Awaited<ReturnType<typeof load>> }[] = [];
        for (let round = 0; round < ROUNDS; round += 1) {
          // each load starts with both processes quiet (in `npm start`, ingest done with the events before)
          await quiet(server.pid);
          const baseline = await load(bare, sample, ROUND_SECONDS);
          const sightline = await load(server, body, ROUND_SECONDS);
          rounds.push({ bare: baseline, sightline });
        }
        const loadAverage = loadavg()[0]!.toFixed(1);
        await quiet(server.pid);
        const unknown = await load(server, unknownKeyBody);
        await server.stop();
        stopped = true;
        const onBus = await count();
        const tag = composition.label.slice(0, 3);
        const rps = median(rounds.map((r) => r.sightline.rps));
        const bareRps = median(rounds.map((r) => r.bare.rps));
        const ratio = median(rounds.map((r) => r.sightline.rps / r.bare.rps));
        const each = (of: (r: (typeof rounds)[number]) => number, digits = 2) => rounds.map((r) => of(r).toFixed(digits)).join(', ');
        figures[`${composition.label}: events/s accepted (median of ${ROUNDS} rounds)`] = `${Math.round(rps)} (${each((r) => r.sightline.rps, 0)})`;
        figures[`${tag} bare fastify (parse + 202) just before each: req/s (${CONNECTIONS} conns)`] = `${Math.round(bareRps)} (${each((r) => r.bare.rps, 0)})`;
        const meets = rps >= 20_000 && ratio >= 0.6;
        figures[`${tag} ratio Sightline / bare, median (each round; target: ≥ 0.6 and ≥ 20,000 events/s)`] =
          `${ratio.toFixed(2)} (${each((r) => r.sightline.rps / r.bare.rps)}): ${meets ? 'meets' : 'misses'} the target`;
        const cpuRatio = median(rounds.map((r) => r.bare.cpuUsPerRequest / r.sightline.cpuUsPerRequest));
        figures[`${tag} server CPU per request, µs: Sightline / bare, medians (ratio, each round)`] =
          `${median(rounds.map((r) => r.sightline.cpuUsPerRequest))} / ${median(rounds.map((r) => r.bare.cpuUsPerRequest))} (${cpuRatio.toFixed(2)}; ${each((r) => r.bare.cpuUsPerRequest / r.sightline.cpuUsPerRequest)})`;
        figures[`${tag} p50/p99 (ms), the highest of the rounds`] =
          `${Math.max(...rounds.map((r) => r.sightline.p50))}/${Math.max(...rounds.map((r) => r.sightline.p99))}`;
        figures[`${tag} answered other than 202`] = rounds.reduce((sum, r) => sum + r.sightline.other, 0);
        // warm-up included; requests in flight when a load stopped may be stored without their 202 being counted
        const accepted = warmUp.accepted + rounds.reduce((sum, r) => sum + r.sightline.accepted, 0);
        const inFlight = warmUp.inFlight + rounds.reduce((sum, r) => sum + r.sightline.inFlight, 0);
        const label = `${tag} events on the bus == answered 202 (+ stored, unanswered at the end)`;
        if (onBus === undefined) {
          figures[label] = 'not counted: no nats-server binary for a private server, and the shared one mixes other runs in';
        } else {
          const unanswered = onBus - accepted;
          figures[label] =
            `${onBus} == ${accepted} (+${unanswered} of ${inFlight} in flight): ${unanswered >= 0 && unanswered <= inFlight ? 'nothing lost' : 'MISMATCH'}`;
        }
        figures[`${tag} unknown key: req/s (refused from the cache), CPU µs/request`] = `${unknown.rps}, ${unknown.cpuUsPerRequest}`;
        figures[`${tag} load average (1 min) after the known-key rounds`] = loadAverage;
      } finally {
        if (!stopped) await server.stop();
        await cleanup?.();
        await dir.remove();
      }
    }
  } finally {
    await bare.stop();
  }
  return figures;
}
