import type { LoadScenario } from './scenario.js';

/** Control-plane CRUD an integration does: read sites and settings, update a site, add and remove goals. */
export const controlPlane: LoadScenario = {
  name: 'control-plane',
  description: 'GET /sites, GET/PATCH /sites/{id}, settings reads, goal create/delete',
  vus: 5,
  durationSeconds: 10,
  thresholds: { p95Ms: 250, maxErrorRate: 0.01 },
  request(ctx, i) {
    const headers = { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
    const site = `/api/v1/sites/${ctx.siteId}`;
    switch (i % 6) {
      case 0:
        return { name: 'GET /sites', method: 'GET', path: '/api/v1/sites', headers, expect: [200] };
      case 1:
        return { name: 'GET /sites/{id}', method: 'GET', path: site, headers, expect: [200] };
      case 2:
        return { name: 'PATCH /sites/{id}', method: 'PATCH', path: site, headers, body: JSON.stringify({ week_start: i % 7 }), expect: [200] };
      case 3:
        return { name: 'GET settings/hostnames', method: 'GET', path: `${site}/settings/hostnames`, headers, expect: [200] };
      case 4:
        return { name: 'GET settings/tracking', method: 'GET', path: `${site}/settings/tracking`, headers, expect: [200] };
      default:
        return { name: 'GET /sites/{id}/snippet', method: 'GET', path: `${site}/snippet`, headers, expect: [200] };
    }
  },
};
