import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { metricsRegistry } from '@sightline/telemetry';
import { CHART_DIR } from './render-chart.js';

// The dashboard and the example alert rules follow the metric catalogue
// (libs/telemetry): no metric without a panel, no rule on a metric nobody exports.
const dashboard = JSON.parse(readFileSync(`${CHART_DIR}/dashboards/sightline.json`, 'utf8')) as { panels: { id: number; targets?: { expr: string }[] }[] };
const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);

/** Sightline's own metrics (not prom-client's default process_/nodejs_ ones), as PromQL names them. */
function ownMetricNames(): string[] {
  return metricsRegistry
    .getMetricsAsArray()
    .filter((m) => !/^sightline_(process|nodejs)_/.test(m.name))
    // prom-client's typings say an enum; at run time `type` is the exposition's word ('histogram', …)
    .map((m) => (String(m.type) === 'histogram' ? `${m.name}_bucket` : m.name));
}

describe('Grafana dashboard and alert rules', () => {
  it('has a panel for every metric the processes export, the bus backlog gauges among them', () => {
    const names = ownMetricNames();
    expect(names).toEqual(expect.arrayContaining(['sightline_bus_consumer_pending_messages', 'sightline_bus_consumer_ack_pending_messages', 'sightline_bus_consumer_lag_seconds']));
    for (const name of names) expect(exprs.some((e) => new RegExp(`\\b${name}\\b`).test(e)), name).toBe(true);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
  });

  it('ships an example PrometheusRule whose alerts use exported metrics, an ingest-stuck alert on the consumer lag among them', () => {
    const rule = parseYaml(readFileSync(`${CHART_DIR}/alerts/sightline-rules.example.yaml`, 'utf8'), { uniqueKeys: true }) as {
      apiVersion: string;
      kind: string;
      spec: { groups: { name: string; rules: { alert: string; expr: string; for: string; labels: { severity: string }; annotations: { summary: string } }[] }[] };
    };
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.kind).toBe('PrometheusRule');
    const rules = rule.spec.groups.flatMap((g) => g.rules);
    const known = new Set(metricsRegistry.getMetricsAsArray().map((m) => m.name));
    for (const r of rules) {
      const used = r.expr.match(/\bsightline_[a-z_]+/g) ?? [];
      expect(used.length, r.alert).toBeGreaterThan(0);
      for (const name of used) expect(known.has(name), `${r.alert}: ${name}`).toBe(true);
      expect(r.for).toMatch(/^\d+m$/);
      expect(['warning', 'critical']).toContain(r.labels.severity);
    }
    const stuck = rules.find((r) => r.alert === 'SightlineIngestStuck')!;
    expect(stuck.expr).toMatch(/sightline_bus_consumer_lag_seconds\{durable=~"ingest-\.\*"\}\) > \d+/);
  });
});
