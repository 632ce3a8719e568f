import type { Config } from '@sightline/config';

/**
 * Where /metrics listens: METRICS_HOST when set; else loopback for `npm start` (one
 * machine, nobody else needs the process's internals) and the gateway's HOST for a
 * service run alone, as in a pod, where Prometheus scrapes it over the pod network.
 */
export function metricsHost(config: Pick<Config, 'METRICS_HOST' | 'HOST'>, target: string): string {
  return config.METRICS_HOST ?? (target === 'all' ? '127.0.0.1' : config.HOST);
}
