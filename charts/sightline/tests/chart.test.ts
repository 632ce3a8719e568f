import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, helm, renderChart, type K8sObject } from './render-chart.js';
import { validateObject } from './validate-k8s.js';

const PRODUCTION = ['-f', `${CHART_DIR}/ci/production-values.yaml`];
const SECRET_VALUES = {
  'postgres.url': 'postgres://sl:pg-secret-7a1@pg:5432/sightline',
  'clickhouse.url': 'http://sl:ch-secret-9b2@clickhouse:8123',
  'smtp.url': 'smtp://sl:smtp-secret-3c4@smtp:587',
  secretKey: 'key-secret-0123456789abcdef0123456789abcdef',
};
const DEFAULTS = Object.entries(SECRET_VALUES).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
const TARGETS = ['gateway', 'identity', 'sites', 'settings', 'script-builder', 'query', 'ingest'];

const workloads = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const podSpec = (o: K8sObject) => (o.spec as { template: { spec: Record<string, any> } }).template.spec;
const byComponent = (objects: K8sObject[], kind: string, component: string) =>
  objects.find((o) => o.kind === kind && o.metadata.labels?.['app.kubernetes.io/component'] === component);

describe('Helm chart', () => {
  it('passes helm lint --strict with default and production values', () => {
    expect(helm(['lint', '--strict', CHART_DIR, ...DEFAULTS])).toContain('0 chart(s) failed');
    expect(helm(['lint', '--strict', CHART_DIR, ...PRODUCTION])).toContain('0 chart(s) failed');
  });

  it.each([
    ['default', DEFAULTS],
    ['production', PRODUCTION],
  ])('renders %s values into objects valid against the Kubernetes schemas', async (_name, flags) => {
    const objects = renderChart(flags);
    expect(objects.length).toBeGreaterThan(20);
    for (const object of objects) await validateObject(object);
  });

  it('lets import uploads through the ingress (ingress-nginx body size), an annotation set by hand winning', () => {
    const ingressOf = (flags: string[]) => renderChart([...DEFAULTS, '--set', 'ingress.enabled=true', ...flags]).find((o) => o.kind === 'Ingress')!;
    expect(ingressOf([]).metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/proxy-body-size': '110m' });
    expect(ingressOf(['--set-string', 'ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/proxy-body-size=500m']).metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/proxy-body-size': '500m' });
    expect(ingressOf(['--set', 'ingress.proxyBodySize=']).metadata.annotations).toBeUndefined();
    expect(() => helm(['template', 'rel', CHART_DIR, '--set', 'ingress.proxyBodySize=lots'])).toThrow(/proxyBodySize/);
  });

  it('trusts the X-Forwarded-For of its own Ingress controller by default, and refuses an Ingress trusting no proxy', () => {
    const trusted = (flags: string[]) => (renderChart([...DEFAULTS, ...flags]).find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'rel-sightline-config')!.data as Record<string, string>).TRUSTED_PROXIES;
    const PRIVATE_RANGES = '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7';
    expect(trusted(['--set', 'ingress.enabled=true'])).toBe(PRIVATE_RANGES);
    expect(trusted(PRODUCTION)).toBe(PRIVATE_RANGES);
    expect(trusted(['--set', 'ingress.enabled=true', '--set-json', 'ingress.trustedProxies=["10.244.0.0/16","fd00:10:244::/56"]'])).toBe('10.244.0.0/16,fd00:10:244::/56');
    // no Ingress of ours, no proxy assumed: the socket address is the client
    expect(trusted([])).toBeUndefined();
    // an explicit TRUSTED_PROXIES wins (one key: the render is parsed with unique keys)
    expect(trusted(['--set', 'ingress.enabled=true', '--set', 'env.TRUSTED_PROXIES=10.1.0.0/16'])).toBe('10.1.0.0/16');
    expect(trusted(['--set', 'env.TRUSTED_PROXIES=10.1.0.0/16'])).toBe('10.1.0.0/16');
    const untrusted = ['--set', 'ingress.enabled=true', '--set-json', 'ingress.trustedProxies=[]'];
    expect(() => renderChart([...DEFAULTS, ...untrusted])).toThrow(/ingress\.enabled with no trusted proxy.*ingress\.trustedProxies.*ingress\.allowUntrustedProxies=true/);
    expect(() => renderChart([...DEFAULTS, ...untrusted, '--set', 'env.TRUSTED_PROXIES='])).toThrow(/no trusted proxy/);
    expect(trusted([...untrusted, '--set', 'ingress.allowUntrustedProxies=true'])).toBeUndefined();
    expect(() => renderChart([...DEFAULTS, '--set', 'ingress.enabled=true', '--set-json', 'ingress.trustedProxies=["ingress-nginx"]'])).toThrow(/trustedProxies/);
  });

  it('refuses values outside values.schema.json', () => {
    expect(() => helm(['template', 'rel', CHART_DIR, '--set', 'services.gateway.replicas=two'])).toThrow(/want integer/);
    expect(() => helm(['template', 'rel', CHART_DIR, '--set', 'publicUrl=ftp://x'])).toThrow(/publicUrl/);
    expect(() => helm(['template', 'rel', CHART_DIR, '--set', 'unknownKey=1'])).toThrow(/additional properties/i);
  });

  it('runs every service from one image with its own --target, ingest as a StatefulSet', () => {
    const objects = renderChart(DEFAULTS);
    const found = workloads(objects).map((w) => {
      const container = podSpec(w).containers[0];
      return { kind: w.kind, target: String(container.args[0]).replace('--target=', ''), image: container.image };
    });
    expect(found.map((f) => f.target).sort()).toEqual([...TARGETS].sort());
    expect(new Set(found.map((f) => f.image)).size).toBe(1);
    expect(found.find((f) => f.target === 'ingest')!.kind).toBe('StatefulSet');
    for (const target of TARGETS) expect(byComponent(objects, 'Service', target), target).toBeDefined();
    for (const target of TARGETS) expect(byComponent(objects, 'PodDisruptionBudget', target), target).toBeDefined();
  });

  it('probes the real health endpoints: HTTP on the gateway, gRPC health on services', () => {
    for (const w of workloads(renderChart(DEFAULTS))) {
      const c = podSpec(w).containers[0];
      if (c.name === 'gateway') {
        expect(c.livenessProbe.httpGet.path).toBe('/healthz');
        expect(c.readinessProbe.httpGet.path).toBe('/readyz/gateway'); // its own readiness: its bus answers
      } else {
        expect(c.readinessProbe.grpc.port).toBe(50051);
        expect(c.livenessProbe.tcpSocket.port).toBe('grpc');
      }
      expect(c.resources.requests.cpu).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    }
  });

  it('gives the pod a termination grace longer than the process drain', () => {
    const objects = renderChart([...DEFAULTS, '--set', 'shutdownGraceSeconds=25']);
    const config = objects.find((o) => o.kind === 'ConfigMap')!;
    expect((config.data as Record<string, string>).SHUTDOWN_GRACE_MS).toBe('25000');
    for (const w of workloads(objects)) expect(podSpec(w).terminationGracePeriodSeconds).toBe(35);
  });

  it('autoscales gateway and query; ingest replicas are fixed and told their count', () => {
    const objects = renderChart(DEFAULTS);
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    const targets = hpas.map((h) => (h.spec as { scaleTargetRef: { kind: string; name: string } }).scaleTargetRef);
    expect(targets.map((t) => t.name).sort()).toEqual(['rel-sightline-gateway', 'rel-sightline-query']);
    const ingest = workloads(objects).find((w) => w.kind === 'StatefulSet')!;
    const env = podSpec(ingest).containers[0].env as { name: string; value?: string; valueFrom?: unknown }[];
    expect((ingest.spec as { replicas: number }).replicas).toBe(2);
    expect(env.find((e) => e.name === 'INGEST_REPLICAS')!.value).toBe('2');
    expect(env.find((e) => e.name === 'POD_NAME')!.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    // the pipeline on the main thread unless asked; the value reaches only ingest
    expect(env.find((e) => e.name === 'INGEST_WORKERS')!.value).toBe('0');
    const threaded = renderChart([...DEFAULTS, '--set', 'ingestPipelineWorkers=3']);
    const threadedIngest = workloads(threaded).find((w) => w.kind === 'StatefulSet')!;
    expect((podSpec(threadedIngest).containers[0].env as { name: string; value?: string }[]).find((e) => e.name === 'INGEST_WORKERS')!.value).toBe('3');
    for (const w of workloads(threaded).filter((o) => o.kind !== 'StatefulSet')) {
      expect(JSON.stringify(podSpec(w).containers[0].env ?? [])).not.toContain('INGEST_WORKERS');
    }
    expect(() => renderChart([...DEFAULTS, '--set', 'ingestPipelineWorkers=-1'])).toThrow();
  });

  it('keeps every credential out of the ConfigMap and in the Secret', () => {
    const objects = renderChart(DEFAULTS);
    const config = JSON.stringify(objects.find((o) => o.kind === 'ConfigMap'));
    const secret = objects.find((o) => o.kind === 'Secret')!;
    for (const value of Object.values(SECRET_VALUES)) {
      expect(config).not.toContain(value);
      expect(Object.values(secret.stringData as Record<string, string>)).toContain(value);
    }
    for (const w of workloads(objects)) expect(JSON.stringify(podSpec(w))).not.toContain('pg-secret-7a1');
  });

  it('gives identity and sites SECRET_KEY from the Secret (one-time codes, widget keys), the same key for every replica', () => {
    for (const flags of [DEFAULTS, PRODUCTION]) {
      const objects = renderChart(flags);
      const secretName = flags === PRODUCTION ? 'sightline-stores' : 'rel-sightline-secrets';
      for (const service of ['identity', 'sites']) {
        const workload = workloads(objects).find((w) => w.metadata.name === `rel-sightline-${service}`)!;
        const env = podSpec(workload).containers[0].env as { name: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
        expect(env.find((e) => e.name === 'SECRET_KEY')!.valueFrom!.secretKeyRef, service).toMatchObject({ name: secretName, key: 'SECRET_KEY' });
      }
    }
  });

  it('creates no Secret when an existing one is named, and reads it instead', () => {
    const objects = renderChart(PRODUCTION);
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const env = podSpec(workloads(objects)[0]!).containers[0].env as { name: string; valueFrom?: { secretKeyRef: { name: string } } }[];
    expect(env.find((e) => e.name === 'DATABASE_URL')!.valueFrom!.secretKeyRef.name).toBe('sightline-stores');
  });

  it('lets only the gateway be reached from outside, services only from the release', () => {
    const policies = renderChart(PRODUCTION).filter((o) => o.kind === 'NetworkPolicy') as any[];
    const gateway = policies.find((p) => p.metadata.name.endsWith('-gateway'));
    const services = policies.find((p) => p.metadata.name.endsWith('-services'));
    expect(gateway.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('gateway');
    expect(gateway.spec.ingress[0].ports).toEqual([{ port: 'http' }]);
    expect(services.spec.podSelector.matchExpressions).toContainEqual({ key: 'app.kubernetes.io/component', operator: 'NotIn', values: ['gateway'] });
    expect(services.spec.ingress[0].ports).toEqual([{ port: 'grpc' }]);
    expect(services.spec.ingress[0].from).toEqual([{ podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'rel' } } }]);
  });

  describe('NetworkPolicy sources', () => {
    type Rule = { ports: { port: string }[]; from?: unknown[] };
    const rules = (flags: string[]) => {
      const policies = renderChart([...DEFAULTS, ...flags]).filter((o) => o.kind === 'NetworkPolicy') as unknown as { metadata: { name: string }; spec: { ingress: Rule[] } }[];
      const rule = (policy: string, port: string) => policies.find((p) => p.metadata.name === `rel-sightline-${policy}`)!.spec.ingress.find((r) => r.ports[0]!.port === port)!;
      return { http: rule('gateway', 'http'), gatewayMetrics: rule('gateway', 'metrics'), servicesMetrics: rule('services', 'metrics') };
    };
    const ingressNamespace = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
    const prometheusIn = (namespace: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } });
    const scraper = { podSelector: { matchLabels: { app: 'vmagent' } } };

    it('reads gatewayFrom and metricsFrom alike: [] is from anywhere, a list only from its peers', () => {
      const open = rules([]);
      for (const rule of [open.http, open.gatewayMetrics, open.servicesMetrics]) expect(rule.from).toBeUndefined();
      const listed = JSON.stringify([ingressNamespace]);
      const closed = rules(['--set-json', `networkPolicy.gatewayFrom=${listed}`, '--set-json', `networkPolicy.metricsFrom=${listed}`]);
      for (const rule of [closed.http, closed.gatewayMetrics, closed.servicesMetrics]) expect(rule.from).toEqual([ingressNamespace]);
    });

    it('lets the ServiceMonitor’s Prometheus scrape through a restricted metricsFrom', () => {
      const restricted = ['--set', 'metrics.serviceMonitor.enabled=true', '--set-json', `networkPolicy.metricsFrom=${JSON.stringify([scraper])}`];
      for (const rule of Object.values(rules(restricted)).slice(1)) expect(rule.from).toEqual([scraper, prometheusIn('monitoring')]);
      const elsewhere = rules([...restricted, '--set', 'metrics.serviceMonitor.prometheusNamespace=observability']);
      expect(elsewhere.servicesMetrics.from).toEqual([scraper, prometheusIn('observability')]);
      // "" says the list already admits Prometheus
      expect(rules([...restricted, '--set', 'metrics.serviceMonitor.prometheusNamespace=']).gatewayMetrics.from).toEqual([scraper]);
      // without the ServiceMonitor, the list as given
      expect(rules(restricted.slice(2)).gatewayMetrics.from).toEqual([scraper]);
      // production values list the monitoring namespace already: not twice
      const production = renderChart(PRODUCTION).filter((o) => o.kind === 'NetworkPolicy') as unknown as { spec: { ingress: Rule[] } }[];
      for (const policy of production) expect(policy.spec.ingress.find((r) => r.ports[0]!.port === 'metrics')!.from).toEqual([prometheusIn('monitoring')]);
    });
  });

  it('spreads each workload’s own pods by the chart-wide or the service’s topologySpreadConstraints', () => {
    expect(workloads(renderChart(DEFAULTS)).map((w) => podSpec(w).topologySpreadConstraints)).toEqual(TARGETS.map(() => undefined));
    const zone = { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' };
    const host = { maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' };
    const objects = renderChart([...DEFAULTS, '--set-json', `topologySpreadConstraints=${JSON.stringify([zone])}`, '--set-json', `services.query.topologySpreadConstraints=${JSON.stringify([host])}`]);
    for (const w of workloads(objects)) {
      const component = w.metadata.labels!['app.kubernetes.io/component']!;
      const own = { matchLabels: { 'app.kubernetes.io/name': 'sightline', 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/component': component } };
      expect(podSpec(w).topologySpreadConstraints, component).toEqual([{ ...(component === 'query' ? host : zone), labelSelector: own }]);
    }
    const chosen = { ...zone, labelSelector: { matchLabels: { tier: 'edge' } } };
    const explicit = renderChart([...DEFAULTS, '--set-json', `services.gateway.topologySpreadConstraints=${JSON.stringify([chosen])}`]);
    expect(podSpec(byComponent(explicit, 'Deployment', 'gateway')!).topologySpreadConstraints).toEqual([chosen]);
    expect(() => renderChart([...DEFAULTS, '--set-json', 'topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Sometimes"}]'])).toThrow(/whenUnsatisfiable/);
  });

  it('sets no CPU limit unless asked; cpuLimitsFromRequests gives every container its request as limit, an explicit limit winning', () => {
    const containers = (objects: K8sObject[]) => [...workloads(objects), objects.find((o) => o.kind === 'Job')!].map((o) => ({ name: o.metadata.name, resources: podSpec(o).containers[0].resources }));
    for (const c of containers(renderChart(DEFAULTS))) expect(c.resources.limits.cpu, c.name).toBeUndefined();
    const limited = containers(renderChart([...DEFAULTS, '--set', 'cpuLimitsFromRequests=true', '--set', 'services.ingest.resources.limits.cpu=3']));
    expect(limited).toHaveLength(TARGETS.length + 1);
    for (const c of limited) {
      expect(c.resources.limits.cpu, c.name).toBe(c.name === 'rel-sightline-ingest' ? 3 : c.resources.requests.cpu);
      expect(c.resources.limits.memory, c.name).toBeDefined();
    }
  });

  it('runs migrations as a pre-install/pre-upgrade hook', () => {
    const job = renderChart(DEFAULTS).find((o) => o.kind === 'Job')!;
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(podSpec(job).containers[0].args).toEqual(['--target=migrate']);
  });

  it('ships the Grafana dashboard as a sidecar-labelled ConfigMap only when asked', () => {
    expect(renderChart(DEFAULTS).filter((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard'))).toEqual([]);
    const dashboard = renderChart(PRODUCTION).find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'rel-sightline-dashboard')!;
    expect(dashboard.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/instance': 'rel' });
    expect(dashboard.metadata.annotations).toEqual({ grafana_folder: 'Sightline' });
    const json = (dashboard.data as Record<string, string>)['sightline.json']!;
    expect(json).toBe(readFileSync(`${CHART_DIR}/dashboards/sightline.json`, 'utf8').trimEnd());
    const parsed = JSON.parse(json) as { uid: string; panels: { type: string; targets?: { expr: string }[] }[] };
    expect(parsed.uid).toBe('sightline-overview');
    const exprs = parsed.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr).join('\n');
    // a panel for every metric the processes export (libs/telemetry/src/metrics.ts)
    for (const metric of [
      'sightline_http_requests_total', 'sightline_http_request_duration_seconds_bucket', 'sightline_grpc_server_handled_total', 'sightline_grpc_server_handling_seconds_bucket',
      'sightline_ingest_lag_seconds_bucket', 'sightline_ingest_batch_size_bucket', 'sightline_ingest_dropped_events_total', 'sightline_ingest_stored_events_total',
      'sightline_query_duration_seconds_bucket', 'sightline_bus_publish_duration_seconds_bucket',
    ]) expect(exprs, metric).toContain(metric);
    // the label the sidecar looks for can be changed
    const relabelled = renderChart([...DEFAULTS, '--set', 'metrics.grafanaDashboard.enabled=true', '--set', 'metrics.grafanaDashboard.labels.grafana_dashboard=null', '--set', 'metrics.grafanaDashboard.labels.dashboards=sightline']);
    const labels = relabelled.find((o) => o.metadata.name === 'rel-sightline-dashboard')!.metadata.labels!;
    expect(labels.dashboards).toBe('sightline');
    expect(labels.grafana_dashboard).toBeUndefined();
  });

  it('tells every service where the others are: every replica behind a headless Service', () => {
    const objects = renderChart(DEFAULTS);
    const data = objects.find((o) => o.kind === 'ConfigMap' && !o.metadata.name.endsWith('-dashboard'))!.data as Record<string, string>;
    expect(data.SITES_GRPC_ADDR).toBe('dns:///rel-sightline-sites:50051');
    expect(data.SCRIPT_BUILDER_GRPC_ADDR).toBe('dns:///rel-sightline-script-builder:50051');
    expect(data.GATEWAY_GRPC_ADDR).toBeUndefined();
    // a ClusterIP would give each caller one connection to one pod; headless, DNS names them all
    for (const target of TARGETS.filter((t) => t !== 'gateway')) {
      const service = byComponent(objects, 'Service', target)!;
      expect((service.spec as { clusterIP?: string }).clusterIP, target).toBe('None');
      expect(data[`${target.toUpperCase().replace('-', '_')}_GRPC_ADDR`], target).toBe(`dns:///${service.metadata.name}:50051`);
    }
    expect((byComponent(objects, 'Service', 'gateway')!.spec as { clusterIP?: string }).clusterIP).toBeUndefined();
  });
});
