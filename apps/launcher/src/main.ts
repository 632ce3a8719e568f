import { ConfigError, loadConfig } from '@sightline/config';
import { createLogger, startMetricsServer, startTracing, type MetricsServer } from '@sightline/telemetry';
import { parseTarget, TARGETS } from './parse-target.js';
import { startSightline } from './start-sightline.js';
import { migrateAll } from './migrate.js';
import { metricsHost } from './metrics-host.js';
import { startIdleGc } from './idle-gc.js';

/**
 * `npm start` → every service in one process on embedded stores.
 * `npm start -- --target=<service>` → one service, as Kubernetes runs it.
 */
async function main(): Promise<void> {
  const started = performance.now();
  let target;
  try {
    target = parseTarget(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  if ((target as string) === 'help') {
    console.log(`usage: npm start -- [--target=${TARGETS.join('|')}]\nConfiguration is read from the environment; see README.md.`);
    return;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger({ level: config.LOG_LEVEL, service: target === 'all' ? undefined : target });
  const tracing = await startTracing({
    exporter: config.OTEL_TRACES_EXPORTER,
    serviceName: config.OTEL_SERVICE_NAME ?? `sightline-${target}`,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });

  if (target === 'migrate') {
    try {
      await migrateAll(config, log);
      log.info({ seconds: ((performance.now() - started) / 1000).toFixed(1) }, 'migrations applied');
      await tracing.shutdown();
      return;
    } catch (error) {
      log.fatal({ err: error }, 'migrations failed');
      await tracing.shutdown();
      process.exit(1);
    }
  }

  // one /metrics endpoint per process, whatever the target (Prometheus scrapes every pod's `metrics` port);
  // bound before the services so no ephemeral port they pick can take it
  let metrics: MetricsServer | undefined;
  if (config.METRICS_PORT > 0) {
    const host = metricsHost(config, target);
    try {
      metrics = await startMetricsServer({ host, port: config.METRICS_PORT });
    } catch (error) {
      // a busy port is an everyday clash (a second Sightline, an exporter): name the variable, no stack
      const cause = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'is already in use' : `cannot be opened (${(error as Error).message})`;
      const message = `METRICS_PORT ${config.METRICS_PORT} on ${host} ${cause}: set METRICS_PORT to a free port, or METRICS_PORT=0 to turn the /metrics endpoint off.`;
      log.fatal({ port: config.METRICS_PORT, host }, message);
      console.error(message);
      await tracing.shutdown();
      process.exit(1);
    }
  }
  let running;
  try {
    running = await startSightline({ config, log, target });
  } catch (error) {
    log.fatal({ err: error }, 'could not start');
    await metrics?.close();
    await tracing.shutdown();
    process.exit(1);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (running.url) {
    log.info({ url: running.url, target, data_dir: target === 'all' ? config.dataDir : undefined, seconds }, 'Sightline is ready');
    console.log(`\nSightline is running at ${running.url}  (target=${target}, data in ${config.dataDir}, started in ${seconds}s)\n`);
  } else {
    log.info({ grpc: running.grpcAddress, target, seconds }, 'service is ready');
  }
  if (metrics) log.info({ port: metrics.port, host: metricsHost(config, target) }, 'metrics at /metrics');
  if (config.IDLE_GC_AFTER_MS > 0) {
    startIdleGc({
      idleMs: config.IDLE_GC_AFTER_MS,
      onCollect: (before, after) =>
        log.debug({ heap_mib_before: Math.round(before / 2 ** 20), heap_mib_after: Math.round(after / 2 ** 20) }, 'quiet after work: JS heap collected'),
    });
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    // a hung drain must not keep a pod from terminating
    const hardStop = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS + 5_000);
    hardStop.unref();
    void running
      .stop()
      .then(() => metrics?.close())
      .then(() => tracing.shutdown())
      .then(
        () => {
          log.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'error while stopping');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();
