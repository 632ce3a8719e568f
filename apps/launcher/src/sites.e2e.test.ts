import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '@sightline/mailer/testing';
import { backendGate, type TestDatabase } from '@sightline/testkit';
import type { RunningSightline } from './start-sightline.js';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, freshIp, register, type Registered } from './test-support/api-client.js';

// Sites, members, goals, funnels and the audit trail through HTTP against the
// started server, on real PostgreSQL (so faults can be injected with SQL).
const pgGate = await backendGate('postgres');

type Site = { site_id: number; name: string; hash: string; timezone: string; week_start: number; hobby: boolean; script_url: string; snippet: string };

describe.skipIf(!pgGate.available)('sites over HTTP', () => {
  let database: TestDatabase;
  let sql: pg.Client;
  let server: E2eServer;
  let smtp: SmtpSink;
  let sightline: RunningSightline;
  let api: ApiClient;
  let n = 0;
  const email = (name: string) => `${name}.${Date.now().toString(36)}${(n += 1)}@mail.sightline-e2e.net`;
  const origin = (name: string) => `https://${name}-${Date.now().toString(36)}${(n += 1)}.sightline-e2e.net`;

  beforeAll(async () => {
    server = await startE2eServer({
      postgres: { url: pgGate.url, databaseName: 'sightline_sites_e2e' },
      env: { DEFAULT_TIMEZONE: 'Europe/Berlin', PUBLIC_URL: 'https://stats.sightline-e2e.net' },
    });
    ({ sightline, api, smtp } = server);
    database = server.database!;
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await server?.stop();
  });

  async function account(name: string): Promise<{ client: ApiClient; owner: Registered; email: string }> {
    const client = api.withIp(freshIp());
    const address = email(name);
    return { client, owner: await register(client, smtp, address), email: address };
  }

  async function createSite(client: ApiClient, token: string, body: Record<string, unknown>) {
    return client.request<Site & { code?: string; error?: string }>('POST', '/api/v1/sites', { token, body });
  }

  describe('create', () => {
    it('answers the site object with its snippet, the origin as name, server time zone, Monday weeks', async () => {
      const { client, owner } = await account('create');
      const url = origin('shop');
      const answer = await createSite(client, owner.token, { url: `${url}/` });
      expect(answer.status).toBe(201);
      expect(Object.keys(answer.body).sort()).toEqual(['hash', 'hobby', 'name', 'script_url', 'site_id', 'snippet', 'timezone', 'week_start']);
      expect(answer.body).toMatchObject({ name: url, timezone: 'Europe/Berlin', week_start: 1, hobby: false });
      expect(answer.body.hash.length).toBeGreaterThanOrEqual(16);
      const trackingKey = /^https:\/\/stats\.sightline-e2e\.net\/js\/([A-Za-z0-9_-]+)\.js$/.exec(answer.body.script_url)?.[1];
      expect(trackingKey).toBeDefined();
      // random and opaque, not the id
      expect(trackingKey!.length).toBeGreaterThanOrEqual(16);
      expect(trackingKey).not.toBe(String(answer.body.site_id));
      expect(answer.body.snippet).toContain(`src="${answer.body.script_url}"`);
      expect(answer.body.snippet).toMatch(/^<script[^>]*><\/script>$/);
    });

    it('starts the trial with the first non-hobby site, not with a hobby one', async () => {
      const { client, owner } = await account('trial');
      const trialOf = async () =>
        (
          await sql.query<{ trial_started_at: Date | null }>(
            'SELECT trial_started_at FROM identity.accounts WHERE id = (SELECT account_id FROM identity.api_keys WHERE id = $1)',
            [owner.key.id],
          )
        ).rows[0]!.trial_started_at;
      expect((await createSite(client, owner.token, { url: `https://me-${Date.now().toString(36)}.github.io`, hobby: true })).status).toBe(201);
      expect(await trialOf()).toBeNull();
      expect((await createSite(client, owner.token, { url: origin('paid') })).status).toBe(201);
      expect(await trialOf()).toBeInstanceOf(Date);
    });

    it.each([
      ['example-no-scheme.net', 'invalid_request'],
      ['https://x.sightline-e2e.net/path', 'invalid_request'],
      ['https://x.sightline-e2e.net/?q=1', 'invalid_request'],
      ['ftp://x.sightline-e2e.net', 'invalid_request'],
      ['https://user@x.sightline-e2e.net', 'invalid_request'],
      ['https://shop.ru', 'domain_not_allowed'],
      ['https://магазин.рф', 'domain_not_allowed'],
      ['https://xn--80aj2abdcii9c.xn--p1ai', 'domain_not_allowed'],
      ['https://site.by:8443', 'domain_not_allowed'],
    ])('refuses %s with 400 %s', async (url, code) => {
      const { client, owner } = await account('bad-url');
      const answer = await createSite(client, owner.token, { url });
      expect([answer.status, answer.body.code]).toEqual([400, code]);
      const listed = await client.request<{ sites: unknown[] }>('GET', '/api/v1/sites', { token: owner.token });
      expect(listed.body.sites).toEqual([]);
    });

    it('refuses an unknown time zone and a hobby site outside the free-tier zones', async () => {
      const { client, owner } = await account('rules');
      expect((await createSite(client, owner.token, { url: origin('tz'), timezone: 'Mars/Olympus' })).body.code).toBe('invalid_request');
      expect((await createSite(client, owner.token, { url: origin('hobby'), hobby: true })).body.code).toBe('invalid_request');
      expect((await createSite(client, owner.token, { url: 'https://github.io', hobby: true })).body.code).toBe('invalid_request');
      const ok = await createSite(client, owner.token, { url: `https://me-${Date.now().toString(36)}.netlify.app`, hobby: true, timezone: 'Asia/Tokyo' });
      expect([ok.status, ok.body.hobby, ok.body.timezone]).toEqual([201, true, 'Asia/Tokyo']);
    });

    it('answers 409 site_exists for a duplicate without returning it; another account may track the same origin', async () => {
      const first = await account('dup');
      const url = origin('dup');
      expect((await createSite(first.client, first.owner.token, { url })).status).toBe(201);
      const again = await createSite(first.client, first.owner.token, { url: url.toUpperCase().replace('HTTPS', 'https') });
      expect(again.status).toBe(409);
      expect(Object.keys(again.body).sort()).toEqual(['code', 'error', 'request_id']);
      expect(again.body.code).toBe('site_exists');
      const second = await account('dup2');
      expect((await createSite(second.client, second.owner.token, { url })).status).toBe(201);
    });

    it('refuses a single-site key (key_not_scoped) and a key without sites:write (insufficient_scope)', async () => {
      const { client, owner } = await account('scope');
      const site = await createSite(client, owner.token, { url: origin('scope') });
      const siteKey = await client.request<{ token: string }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 's', permissions: ['sites:write', 'stats:read'], site_id: site.body.site_id },
      });
      const answer = await createSite(client, siteKey.body.token, { url: origin('scoped') });
      expect([answer.status, answer.body.code]).toEqual([403, 'key_not_scoped']);
      const reader = await client.request<{ token: string }>('POST', '/api/v1/keys', { token: owner.token, body: { name: 'r', permissions: ['stats:read'] } });
      const refused = await createSite(client, reader.body.token, { url: origin('reader') });
      expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
      expect(refused.body.error).toContain('sites:write');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the stored answer for the same body and refuses another body', async () => {
      const { client, owner } = await account('idem');
      const url = origin('idem');
      const headers = { 'idempotency-key': `order-${Date.now()}` };
      const first = await client.request<Site>('POST', '/api/v1/sites', { token: owner.token, body: { url }, headers });
      const second = await client.request<Site>('POST', '/api/v1/sites', { token: owner.token, body: { url }, headers });
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const other = await client.request('POST', '/api/v1/sites', { token: owner.token, body: { url: origin('other') }, headers });
      expect([other.status, other.body.code]).toEqual([409, 'idempotency_conflict']);
      const listed = await client.request<{ sites: unknown[] }>('GET', '/api/v1/sites', { token: owner.token });
      expect(listed.body.sites).toHaveLength(1);
      // keys are scoped to the account: another account may use the same key
      const stranger = await account('idem2');
      expect((await stranger.client.request('POST', '/api/v1/sites', { token: stranger.owner.token, body: { url }, headers })).status).toBe(201);
      const bad = await client.request('POST', '/api/v1/sites', {
        token: owner.token,
        body: { url: origin('x') },
        headers: { 'idempotency-key': 'has space' },
      });
      expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
    });

    it('creates exactly one site from 20 parallel identical requests', async () => {
      const { client, owner } = await account('parallel');
      const url = origin('parallel');
      const headers = { 'idempotency-key': `parallel-${Date.now()}` };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => client.request<Site>('POST', '/api/v1/sites', { token: owner.token, body: { url }, headers })),
      );
      const created = answers.filter((a) => a.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((a) => a.body.site_id)).size).toBe(1);
      for (const a of answers.filter((x) => x.status !== 201))
        expect([a.status, (a.body as unknown as { code: string }).code]).toEqual([409, 'idempotency_conflict']);
      const listed = await client.request<{ sites: unknown[] }>('GET', '/api/v1/sites', { token: owner.token });
      expect(listed.body.sites).toHaveLength(1);
      const later = await client.request<Site>('POST', '/api/v1/sites', { token: owner.token, body: { url }, headers });
      expect([later.status, later.body.site_id]).toEqual([201, created[0]!.body.site_id]);
    });
  });

  describe('list, update, delete', () => {
    it('lists reachable sites with the caller’s role and updates with the creation rules', async () => {
      const { client, owner } = await account('update');
      const site = await createSite(client, owner.token, { url: origin('up') });
      const taken = await createSite(client, owner.token, { url: origin('taken') });
      const listed = await client.request<{ sites: Array<Site & { role: string }> }>('GET', '/api/v1/sites', { token: owner.token });
      expect(listed.body.sites.map((s) => [s.site_id, s.role])).toEqual([
        [site.body.site_id, 'owner'],
        [taken.body.site_id, 'owner'],
      ]);
      const path = `/api/v1/sites/${site.body.site_id}`;
      const moved = await client.request<Site>('PATCH', path, { token: owner.token, body: { timezone: 'America/New_York', week_start: 0 } });
      expect(moved.body).toMatchObject({ timezone: 'America/New_York', week_start: 0, name: site.body.name, script_url: site.body.script_url });
      expect((await client.request('PATCH', path, { token: owner.token, body: { url: taken.body.name } })).body.code).toBe('site_exists');
      expect((await client.request('PATCH', path, { token: owner.token, body: { url: 'https://shop.su' } })).body.code).toBe('domain_not_allowed');
      expect((await client.request('PATCH', path, { token: owner.token, body: { timezone: 'Nowhere/Land' } })).body.code).toBe('invalid_request');
      expect((await client.request('PATCH', path, { token: owner.token, body: { week_start: 7 } })).body.code).toBe('invalid_request');
      const renamed = origin('renamed');
      expect((await client.request<Site>('PATCH', path, { token: owner.token, body: { url: renamed } })).body.name).toBe(renamed);
      const hobby = await createSite(client, owner.token, { url: `https://me-${Date.now().toString(36)}.pages.dev`, hobby: true });
      expect((await client.request('PATCH', `/api/v1/sites/${hobby.body.site_id}`, { token: owner.token, body: { url: origin('not-hobby') } })).body.code).toBe(
        'invalid_request',
      );
    });

    it('deletes (owner only) after recording the deletion; 503 deletion_unavailable when it cannot be recorded', async () => {
      const { client, owner } = await account('delete');
      const site = await createSite(client, owner.token, { url: origin('del') });
      const path = `/api/v1/sites/${site.body.site_id}`;
      await client.request('POST', `${path}/goals`, { token: owner.token, body: { event_name: 'Signup' } });
      await sql.query('ALTER TABLE sites.outbox RENAME TO outbox_unavailable');
      try {
        const refused = await client.request('DELETE', path, { token: owner.token });
        expect([refused.status, refused.body.code]).toEqual([503, 'deletion_unavailable']);
      } finally {
        await sql.query('ALTER TABLE sites.outbox_unavailable RENAME TO outbox');
      }
      expect((await client.request('GET', path, { token: owner.token })).status).toBe(200);
      expect((await client.request<{ goals: unknown[] }>('GET', `${path}/goals`, { token: owner.token })).body.goals).toHaveLength(1);

      const deleted = await client.request('DELETE', path, { token: owner.token });
      expect(deleted.status).toBe(204);
      expect((await client.request('GET', path, { token: owner.token })).body.code).toBe('unknown_site');
      expect((await client.request('DELETE', path, { token: owner.token })).body.code).toBe('unknown_site');
      // the site.deleted message leaves through the outbox
      let published = false;
      for (let i = 0; i < 40 && !published; i += 1) {
        const { rows } = await sql.query("SELECT published_at FROM sites.outbox WHERE subject = 'site.deleted' AND payload->>'site_id' = $1", [
          String(site.body.site_id),
        ]);
        published = rows[0]?.published_at != null;
        if (!published) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(published).toBe(true);
    });
  });

  describe('members and roles', () => {
    it('lets owner and admins manage; members only read; only the owner deletes', async () => {
      const { client, owner } = await account('roles');
      const site = await createSite(client, owner.token, { url: origin('roles') });
      const path = `/api/v1/sites/${site.body.site_id}`;
      const admin = await account('admin');
      const member = await account('member');
      const addedAdmin = await client.request('POST', `${path}/members`, { token: owner.token, body: { email: admin.email, role: 'admin' } });
      expect(addedAdmin.status).toBe(201);
      expect(addedAdmin.body).toMatchObject({ email: admin.email, role: 'admin' });
      expect((await admin.client.request('POST', `${path}/members`, { token: admin.owner.token, body: { email: member.email, role: 'member' } })).status).toBe(
        201,
      );
      expect((await client.request('POST', `${path}/members`, { token: owner.token, body: { email: email('nobody'), role: 'member' } })).body.code).toBe(
        'invalid_request',
      );
      expect((await client.request('POST', `${path}/members`, { token: owner.token, body: { email: admin.email, role: 'king' } })).body.code).toBe(
        'invalid_request',
      );

      const members = await client.request<{ members: Array<{ email: string; role: string }> }>('GET', `${path}/members`, { token: owner.token });
      expect(members.body.members.map((m) => m.role).sort()).toEqual(['admin', 'member', 'owner']);
      expect(members.body.members.find((m) => m.role === 'owner')!.email).toMatch(/^roles\./);

      const seen = await member.client.request<{ sites: Array<{ site_id: number; role: string }> }>('GET', '/api/v1/sites', { token: member.owner.token });
      expect(seen.body.sites).toEqual([expect.objectContaining({ site_id: site.body.site_id, role: 'member' })]);
      expect((await member.client.request('GET', `${path}/goals`, { token: member.owner.token })).status).toBe(200);
      for (const [method, suffix, body] of [
        ['PATCH', '', { timezone: 'Asia/Tokyo' }],
        ['POST', '/goals', { event_name: 'X' }],
        ['POST', '/members', { email: admin.email, role: 'member' }],
        ['GET', '/members', undefined],
        ['GET', '/audit', undefined],
        ['DELETE', '', undefined],
      ] as const) {
        const answer = await member.client.request(method, `${path}${suffix}`, { token: member.owner.token, body });
        expect([method + suffix, answer.status, answer.body.code]).toEqual([method + suffix, 403, 'not_site_owner']);
      }
      expect((await admin.client.request('PATCH', path, { token: admin.owner.token, body: { week_start: 3 } })).status).toBe(200);
      expect((await admin.client.request('DELETE', path, { token: admin.owner.token })).body.code).toBe('not_site_owner');
      const memberId = members.body.members.find((m) => m.role === 'member') as unknown as { account_id: number };
      expect((await client.request('DELETE', `${path}/members/${memberId.account_id}`, { token: owner.token })).status).toBe(204);
      expect((await member.client.request('GET', `${path}/goals`, { token: member.owner.token })).body.code).toBe('unknown_site');
    });
  });

  describe('goals and funnels', () => {
    it('creates goals and funnels with every rule', async () => {
      const { client, owner } = await account('goals');
      const site = await createSite(client, owner.token, { url: origin('goals') });
      const path = `/api/v1/sites/${site.body.site_id}`;
      const post = (suffix: string, body: unknown) => client.request<Record<string, unknown>>('POST', `${path}${suffix}`, { token: owner.token, body });
      const signup = await post('/goals', { event_name: 'Signup' });
      expect([signup.status, signup.body.display_name, signup.body.page_path]).toEqual([201, 'Signup', null]);
      const pricing = await post('/goals', { page_path: '/pricing*' });
      expect(pricing.body.display_name).toBe('Visit /pricing*');
      expect((await post('/goals', { event_name: 'Signup' })).body.code).toBe('goal_exists');
      expect((await post('/goals', {})).body.code).toBe('invalid_request');
      expect((await post('/goals', { event_name: 'A', page_path: '/a' })).body.code).toBe('invalid_request');

      const funnel = await post('/funnels', { name: 'Checkout', steps: [pricing.body.goal_id, signup.body.goal_id] });
      expect(funnel.status).toBe(201);
      expect((funnel.body.steps as Array<{ goal_id: number }>).map((s) => s.goal_id)).toEqual([pricing.body.goal_id, signup.body.goal_id]);
      expect((await post('/funnels', { name: 'Checkout', steps: [pricing.body.goal_id, signup.body.goal_id] })).body.code).toBe('funnel_exists');
      expect((await post('/funnels', { name: 'One', steps: [signup.body.goal_id] })).body.code).toBe('invalid_request');
      expect((await post('/funnels', { name: 'Dup', steps: [signup.body.goal_id, signup.body.goal_id] })).body.code).toBe('invalid_request');
      expect((await post('/funnels', { name: 'Ghost', steps: [signup.body.goal_id, 99_999_999] })).body.code).toBe('goal_not_found');

      const inUse = await client.request('DELETE', `${path}/goals/${signup.body.goal_id}`, { token: owner.token });
      expect([inUse.status, inUse.body.code]).toEqual([409, 'goal_in_use']);
      expect(inUse.body.error).toContain('Checkout');
      expect((await client.request('GET', `${path}/funnels/${funnel.body.funnel_id}`, { token: owner.token })).body.name).toBe('Checkout');
      expect((await client.request('GET', `${path}/funnels/99999999`, { token: owner.token })).body.code).toBe('unknown_funnel');
      expect((await client.request('DELETE', `${path}/funnels/${funnel.body.funnel_id}`, { token: owner.token })).status).toBe(204);
      expect((await client.request('DELETE', `${path}/funnels/${funnel.body.funnel_id}`, { token: owner.token })).body.code).toBe('unknown_funnel');
      expect((await client.request('DELETE', `${path}/goals/${signup.body.goal_id}`, { token: owner.token })).status).toBe(204);
      expect((await client.request('DELETE', `${path}/goals/${signup.body.goal_id}`, { token: owner.token })).body.code).toBe('goal_not_found');
    });
  });

  describe('audit trail', () => {
    it('records every write with key, IP, User-Agent and request id, newest first, paged', async () => {
      const ip = freshIp();
      const { owner } = await account('audit');
      const client = api.withIp(ip);
      const site = await createSite(client, owner.token, { url: origin('audit') });
      const path = `/api/v1/sites/${site.body.site_id}`;
      const goal = await client.request<{ goal_id: number }>('POST', `${path}/goals`, { token: owner.token, body: { event_name: 'Buy' } });
      const patch = await client.request('PATCH', path, { token: owner.token, body: { week_start: 2 } });
      await client.request('DELETE', `${path}/goals/${goal.body.goal_id}`, { token: owner.token });
      const page1 = await client.request<{ entries: Array<Record<string, unknown>>; next_cursor: string | null }>('GET', `${path}/audit?limit=2`, {
        token: owner.token,
      });
      expect(page1.body.entries.map((e) => e.action)).toEqual(['goal.delete', 'site.update']);
      expect(page1.body.entries[1]).toMatchObject({ key_id: owner.key.id, ip, user_agent: 'sightline-e2e/1.0', request_id: patch.headers.get('x-request-id') });
      const page2 = await client.request<{ entries: Array<Record<string, unknown>>; next_cursor: string | null }>(
        'GET',
        `${path}/audit?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor!)}`,
        { token: owner.token },
      );
      expect(page2.body.entries.map((e) => e.action)).toEqual(['goal.create', 'site.create']);
      expect(page2.body.next_cursor).toBeNull();
    });
  });

  describe('a site the key cannot reach', () => {
    it('answers every /sites/{id} route like a missing site, and key_not_scoped to a single-site key on a sibling', async () => {
      const { client, owner } = await account('bola');
      const mine = await createSite(client, owner.token, { url: origin('mine') });
      const sibling = await createSite(client, owner.token, { url: origin('sibling') });
      const siteKey = await client.request<{ token: string }>('POST', '/api/v1/keys', {
        token: owner.token,
        body: { name: 'one site', permissions: ['stats:read', 'sites:write'], site_id: mine.body.site_id },
      });
      const other = await account('victim');
      const theirs = await createSite(other.client, other.owner.token, { url: origin('theirs') });
      const goal = await other.client.request<{ goal_id: number }>('POST', `/api/v1/sites/${theirs.body.site_id}/goals`, {
        token: other.owner.token,
        body: { event_name: 'E' },
      });
      const funnelGoal = await other.client.request<{ goal_id: number }>('POST', `/api/v1/sites/${theirs.body.site_id}/goals`, {
        token: other.owner.token,
        body: { event_name: 'F' },
      });
      const funnel = await other.client.request<{ funnel_id: number }>('POST', `/api/v1/sites/${theirs.body.site_id}/funnels`, {
        token: other.owner.token,
        body: { name: 'F', steps: [goal.body.goal_id, funnelGoal.body.goal_id] },
      });
      const routes: Array<[string, string, unknown?]> = [
        ['GET', ''],
        ['PATCH', '', { week_start: 2 }],
        ['DELETE', ''],
        ['GET', '/members'],
        ['POST', '/members', { email: other.email, role: 'member' }],
        ['DELETE', `/members/${other.owner.key.id.length}`],
        ['GET', '/goals'],
        ['POST', '/goals', { event_name: 'Hack' }],
        ['DELETE', `/goals/${goal.body.goal_id}`],
        ['GET', '/funnels'],
        ['POST', '/funnels', { name: 'Hack', steps: [goal.body.goal_id, funnelGoal.body.goal_id] }],
        ['GET', `/funnels/${funnel.body.funnel_id}`],
        ['DELETE', `/funnels/${funnel.body.funnel_id}`],
        ['GET', '/audit'],
      ];
      const cases: Array<[string, number, string, number, string]> = [
        ['another account’s site', theirs.body.site_id, owner.token, 404, 'unknown_site'],
        ['a missing id', 99_999_999, owner.token, 404, 'unknown_site'],
        ['a sibling site, single-site key', sibling.body.site_id, siteKey.body.token, 403, 'key_not_scoped'],
      ];
      const unknownBodies = new Set<string>();
      for (const [label, siteId, token, status, code] of cases) {
        for (const [method, suffix, body] of routes) {
          const answer = await client.request(method, `/api/v1/sites/${siteId}${suffix}`, { token, body });
          expect([label, method, suffix, answer.status, answer.body.code]).toEqual([label, method, suffix, status, code]);
          if (code === 'unknown_site') unknownBodies.add(String(answer.body.error));
        }
      }
      expect(unknownBodies.size).toBe(1); // a foreign site and a missing one read exactly alike
      // and nothing of theirs changed
      const audit = await other.client.request<{ entries: Array<{ action: string }> }>('GET', `/api/v1/sites/${theirs.body.site_id}/audit`, {
        token: other.owner.token,
      });
      expect(audit.body.entries.map((e) => e.action)).toEqual(['funnel.create', 'goal.create', 'goal.create', 'site.create']);
    });
  });

  it('documents every new route in the OpenAPI description', async () => {
    const text = await (await fetch(`${sightline.url}/api/v1/openapi.yaml`)).text();
    for (const path of [
      '/sites:',
      '/sites/{id}:',
      '/sites/{id}/members:',
      '/sites/{id}/members/{account_id}:',
      '/sites/{id}/goals:',
      '/sites/{id}/goals/{goal_id}:',
      '/sites/{id}/funnels:',
      '/sites/{id}/funnels/{funnel_id}:',
      '/sites/{id}/audit:',
    ]) {
      expect(text).toContain(path);
    }
  });
});
