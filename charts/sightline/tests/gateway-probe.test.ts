import { describe, expect, it } from 'vitest';
import { renderChart } from './render-chart.js';

// The gateway pod's readiness is its own (/readyz/gateway: its bus answers), not the
// liveness endpoint that never fails, nor the whole-system /readyz that would pull
// every gateway out when one service is down.
describe('gateway probes', () => {
  it('uses /readyz/gateway for readiness and /healthz for liveness and start-up', () => {
    const gateway = renderChart().find((o) => o.kind === 'Deployment' && o.metadata.name === 'rel-sightline-gateway')!;
    const container = (gateway.spec as { template: { spec: { containers: Record<string, { httpGet?: { path: string } }>[] } } }).template.spec.containers[0]!;
    expect(container.readinessProbe!.httpGet!.path).toBe('/readyz/gateway');
    expect(container.livenessProbe!.httpGet!.path).toBe('/healthz');
    expect(container.startupProbe!.httpGet!.path).toBe('/healthz');
  });
});
