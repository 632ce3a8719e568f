import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startE2eServer, type E2eServer } from './test-support/e2e-server.js';
import { ApiClient, codeFromMail, freshIp, register, type ApiAnswer } from './test-support/api-client.js';

// Annotations over HTTP: the whole service in this process (PGlite, chDB), accounts
// registered through the mailed codes, the dashboard's session cookie carried by hand.
interface Note {
  annotation_id: number;
  date: string | null;
  datetime: string | null;
  local_date: string;
  text: string;
  author: string;
  author_key_id: string;
  created_at: string;
  updated_at: string;
}
interface NoteList {
  annotations: Note[];
  next_cursor: string | null;
  timezone: string;
}
interface Failure {
  code: string;
  error: string;
}
interface Account {
  email: string;
  token: string;
  keyId: string;
}

describe('annotations over HTTP', () => {
  let server: E2eServer;
  let client: ApiClient;
  let owner: Account;
  let admin: Account;
  let member: Account;
  let stranger: Account;
  let siteId: number;
  let siteHash: string;
  const stamp = Date.now().toString(36);

  const account = async (name: string): Promise<Account> => {
    const email = `${name}.${stamp}@mail.sightline-e2e.net`;
    const registered = await register(client, server.smtp, email);
    return { email, token: registered.token, keyId: registered.key.id };
  };
  const api = <T = Record<string, unknown>>(who: Account | string | undefined, method: string, path: string, body?: unknown) =>
    client.request<T>(method, `/api/v1${path}`, { token: typeof who === 'string' ? who : who?.token, body });
  const notes = (who: Account, query = '') => api<NoteList>(who, 'GET', `/sites/${siteId}/annotations${query}`);
  const auditActions = async () =>
    (await api<{ entries: Array<{ action: string }> }>(owner, 'GET', `/sites/${siteId}/audit?limit=200`)).body.entries.map((e) => e.action).reverse();
  const expectFailure = (answer: ApiAnswer<unknown>, status: number, code: string, pattern?: RegExp) => {
    const body = answer.body as Failure;
    expect({ status: answer.status, code: body.code }, JSON.stringify(body)).toEqual({ status, code });
    if (pattern) expect(body.error).toMatch(pattern);
  };

  beforeAll(async () => {
    server = await startE2eServer();
    client = server.api.withIp(freshIp());
    [owner, admin, member, stranger] = [await account('owner'), await account('admin'), await account('member'), await account('stranger')];
    const site = await api<{ site_id: number; hash: string }>(owner, 'POST', '/sites', {
      url: `https://notes-${stamp}.sightline-e2e.net`,
      timezone: 'Europe/Berlin',
    });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    siteId = site.body.site_id;
    siteHash = site.body.hash;
    expect((await api(owner, 'POST', `/sites/${siteId}/members`, { email: admin.email, role: 'admin' })).status).toBe(201);
    expect((await api(owner, 'POST', `/sites/${siteId}/members`, { email: member.email, role: 'member' })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('create, list by window and page, update and delete; authors named by address; every write audited', async () => {
    const day = await api<Note>(owner, 'POST', `/sites/${siteId}/annotations`, { date: '2026-03-29', text: ' Launched pricing page ' });
    expect(day.status, JSON.stringify(day.body)).toBe(201);
    expect(day.body).toEqual({
      annotation_id: expect.any(Number),
      date: '2026-03-29',
      datetime: null,
      local_date: '2026-03-29',
      text: 'Launched pricing page',
      author: owner.email,
      author_key_id: owner.keyId,
      created_at: expect.any(String),
      updated_at: day.body.created_at,
    });
    // 22:30Z on the 29th is 00:30 CEST on the 30th in Berlin
    const outage = await api<Note>(admin, 'POST', `/sites/${siteId}/annotations`, { datetime: '2026-03-29T22:30:00Z', text: 'Outage, "db", 20 min' });
    expect(outage.status).toBe(201);
    expect(outage.body).toMatchObject({ date: null, datetime: '2026-03-29T22:30:00.000Z', local_date: '2026-03-30', author: admin.email });
    const early = await api<Note>(owner, 'POST', `/sites/${siteId}/annotations`, { datetime: '2026-03-29T08:00:00+02:00', text: '=HYPERLINK("x")' });
    expect(early.body.local_date).toBe('2026-03-29');

    const all = await notes(member);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ annotations: [day.body, early.body, outage.body], next_cursor: null, timezone: 'Europe/Berlin' });
    expect((await notes(member, '?from=2026-03-30&to=2026-03-30')).body.annotations.map((n) => n.text)).toEqual(['Outage, "db", 20 min']);
    expect((await notes(member, '?from=2026-04-01')).body.annotations).toEqual([]);
    const first = await notes(member, '?limit=2');
    expect(first.body.annotations.map((n) => n.annotation_id)).toEqual([day.body.annotation_id, early.body.annotation_id]);
    const second = await notes(member, `?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ annotations: [outage.body], next_cursor: null });

    const edited = await api<Note>(admin, 'PATCH', `/sites/${siteId}/annotations/${day.body.annotation_id}`, {
      text: 'Launched pricing page v2',
      datetime: '2026-03-29T10:00:00+02:00',
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({
      date: null,
      datetime: '2026-03-29T08:00:00.000Z',
      local_date: '2026-03-29',
      text: 'Launched pricing page v2',
      author: owner.email,
    });
    const deleted = await api(owner, 'DELETE', `/sites/${siteId}/annotations/${outage.body.annotation_id}`);
    expect(deleted.status).toBe(204);
    expectFailure(await api(owner, 'DELETE', `/sites/${siteId}/annotations/${outage.body.annotation_id}`), 404, 'unknown_annotation');
    expect((await notes(owner)).body.annotations.map((n) => n.text)).toEqual(['=HYPERLINK("x")', 'Launched pricing page v2']);
    expect((await auditActions()).filter((a) => a.startsWith('annotation.'))).toEqual([
      'annotation.create',
      'annotation.create',
      'annotation.create',
      'annotation.update',
      'annotation.delete',
    ]);
    const entries = (
      await api<{ entries: Array<{ action: string; key_id: string; details: Record<string, unknown> }> }>(owner, 'GET', `/sites/${siteId}/audit?limit=5`)
    ).body.entries;
    expect(entries.find((e) => e.action === 'annotation.update')).toMatchObject({
      key_id: admin.keyId,
      details: { annotation_id: day.body.annotation_id, after: { text: 'Launched pricing page v2' } },
    });
  });

  it('reach: members read only, strangers and missing sites get unknown_site, keys need their permission', async () => {
    const path = `/sites/${siteId}/annotations`;
    const existing = (await notes(owner)).body.annotations[0]!;
    const before = { list: (await notes(owner)).body, audit: await auditActions() };
    expectFailure(await api(member, 'POST', path, { date: '2026-01-01', text: 'no' }), 403, 'not_site_owner');
    expectFailure(await api(member, 'PATCH', `${path}/${existing.annotation_id}`, { text: 'no' }), 403, 'not_site_owner');
    expectFailure(await api(member, 'DELETE', `${path}/${existing.annotation_id}`), 403, 'not_site_owner');
    for (const [method, sub, body] of [
      ['GET', '', undefined],
      ['POST', '', { date: '2026-01-01', text: 'no' }],
      ['PATCH', `/${existing.annotation_id}`, { text: 'no' }],
      ['DELETE', `/${existing.annotation_id}`, undefined],
    ] as const) {
      const refused = await api<Failure>(stranger, method, `${path}${sub}`, body);
      const missing = await api<Failure>(owner, method, `/sites/999999999/annotations${sub}`, body);
      expectFailure(refused, 404, 'unknown_site');
      expectFailure(missing, 404, 'unknown_site');
      expect(refused.body.error).toBe(missing.body.error);
      expectFailure(await api(undefined, method, `${path}${sub}`, body), 401, 'unauthorized');
    }
    const readOnly = await api<{ token: string }>(owner, 'POST', '/keys', { name: 'reader', permissions: ['stats:read'] });
    expect(readOnly.status, JSON.stringify(readOnly.body)).toBe(201);
    expect((await notes({ email: '', token: readOnly.body.token, keyId: '' })).status).toBe(200);
    expectFailure(await api(readOnly.body.token, 'POST', path, { date: '2026-01-01', text: 'no' }), 403, 'insufficient_scope');
    expect({ list: (await notes(owner)).body, audit: await auditActions() }).toEqual(before);
  });

  it('bad input answers its code and writes nothing', async () => {
    const path = `/sites/${siteId}/annotations`;
    const existing = (await notes(owner)).body.annotations[0]!;
    const before = { list: (await notes(owner)).body, audit: await auditActions() };
    const bad: Array<[unknown, RegExp]> = [
      [{ text: 'no moment' }, /date .* or datetime .* is required/],
      [{ date: '2026-01-01', datetime: '2026-01-01T00:00:00Z', text: 'both' }, /not both/],
      [{ date: '2026-02-30', text: 'x' }, /date must be/],
      [{ datetime: '2026-03-29T12:00:00', text: 'no offset' }, /datetime must be/],
      [{ date: '2026-01-01', text: '   ' }, /text is required/],
      [{ date: '2026-01-01', text: 'x'.repeat(281) }, /280/],
      [{ date: '2026-01-01', text: 'line\nbreak' }, /control/],
      [{ date: '2026-01-01' }, /text/],
      [{ date: '2026-01-01', text: 'x', author: 'someone else' }, /author/],
      [{ date: 20260101, text: 'x' }, /date/],
    ];
    for (const [body, pattern] of bad) expectFailure(await api(owner, 'POST', path, body), 400, 'invalid_request', pattern);
    const raw = await client.request('POST', `/api/v1${path}`, { token: owner.token, headers: { 'content-type': 'application/json' }, body: undefined });
    expectFailure(raw, 400, 'invalid_request');
    expectFailure(await api(owner, 'PATCH', `${path}/${existing.annotation_id}`, {}), 400, 'invalid_request', /at least one/);
    expectFailure(await api(owner, 'PATCH', `${path}/${existing.annotation_id}`, { text: 'x'.repeat(281) }), 400, 'invalid_request', /280/);
    expectFailure(await api(owner, 'PATCH', `${path}/999999999`, { text: 'x' }), 404, 'unknown_annotation');
    for (const query of ['?limit=0', '?limit=501', '?from=2026-13-01', '?from=2026-03-02&to=2026-03-01', '?cursor=garbage', '?unknown=1']) {
      expectFailure(await api(owner, 'GET', `${path}${query}`), 400, 'invalid_request');
    }
    expect({ list: (await notes(owner)).body, audit: await auditActions() }).toEqual(before);
    // a note of another site is unknown here, however it is addressed
    const other = await api<{ site_id: number }>(owner, 'POST', '/sites', { url: `https://other-${stamp}.sightline-e2e.net` });
    const foreign = await api<Note>(owner, 'POST', `/sites/${other.body.site_id}/annotations`, { date: '2026-01-01', text: 'elsewhere' });
    expectFailure(await api(owner, 'PATCH', `${path}/${foreign.body.annotation_id}`, { text: 'moved?' }), 404, 'unknown_annotation');
    expectFailure(await api(owner, 'DELETE', `${path}/${foreign.body.annotation_id}`), 404, 'unknown_annotation');
    expect((await api<NoteList>(owner, 'GET', `/sites/${other.body.site_id}/annotations`)).body.annotations.map((n) => n.text)).toEqual(['elsewhere']);
  });

  it('the dashboard session reads and, as owner or admin, writes with its CSRF token; a member session is refused', async () => {
    const session = async (who: Account) => {
      // registration routes count 20 requests per address and hour: a browser of its own
      const browser = server.api.withIp(freshIp());
      const before = server.smtp.received.length;
      expect((await browser.request('POST', '/api/v1/auth/send-otp', { body: { email: who.email } })).status).toBe(200);
      const code = await codeFromMail(server.smtp, who.email, before);
      const answer = await browser.request<{ csrf_token: string }>('POST', '/web/session', { body: { email: who.email, code } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const cookie = /^sightline_session=([^;]*)/.exec(answer.headers.get('set-cookie') ?? '')![1]!;
      return (method: string, path: string, body?: unknown, csrf = true) =>
        browser.request<Record<string, unknown>>(method, `/api/v1/sites/${siteId}/annotations${path}`, {
          body,
          headers: { cookie: `sightline_session=${cookie}`, ...(csrf ? { 'x-csrf-token': answer.body.csrf_token } : {}) },
        });
    };
    const asAdmin = await session(admin);
    const created = await asAdmin('POST', '', { date: '2026-05-01', text: 'From the dashboard' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ author: admin.email, author_key_id: expect.stringMatching(/^ses_/) });
    expectFailure(await asAdmin('POST', '', { date: '2026-05-01', text: 'no csrf' }, false), 401, 'unauthorized');
    expect((await asAdmin('PATCH', `/${created.body.annotation_id as number}`, { text: 'Edited in the dashboard' })).status).toBe(200);
    expect((await asAdmin('DELETE', `/${created.body.annotation_id as number}`)).status).toBe(204);
    const asMember = await session(member);
    expect((await asMember('GET', '?from=2026-01-01')).status).toBe(200);
    expectFailure(await asMember('POST', '', { date: '2026-05-01', text: 'member' }), 403, 'not_site_owner');
  });

  it('a public dashboard reads the notes without authors; a closed one is unknown_site', async () => {
    const shared = () => client.request<Record<string, unknown>>('GET', `/api/v1/share/${siteHash}/annotations?from=2026-03-01&to=2026-03-31`);
    expectFailure(await shared(), 404, 'unknown_site');
    expect((await api(owner, 'PUT', `/sites/${siteId}/settings/public-dashboard`, { enabled: true })).status).toBe(200);
    const open = await shared();
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    const mine = (await notes(owner, '?from=2026-03-01&to=2026-03-31')).body;
    expect(open.body).toEqual({
      annotations: mine.annotations.map(({ annotation_id, date, datetime, local_date, text }) => ({ annotation_id, date, datetime, local_date, text })),
      next_cursor: null,
      timezone: 'Europe/Berlin',
    });
    expect(JSON.stringify(open.body)).not.toContain('@');
    expectFailure(await client.request('GET', `/api/v1/share/${siteHash}/annotations?limit=9999`), 400, 'invalid_request');
    expect((await api(owner, 'PUT', `/sites/${siteId}/settings/public-dashboard`, { enabled: false })).status).toBe(200);
    expectFailure(await shared(), 404, 'unknown_site');
  });

  it('export: every note of the window as NDJSON (the list’s objects) or CSV, members included, strangers refused', async () => {
    const site = await api<{ site_id: number }>(owner, 'POST', '/sites', {
      url: `https://notes-export-${stamp}.sightline-e2e.net`,
      timezone: 'America/New_York',
    });
    const id = site.body.site_id;
    expect((await api(owner, 'POST', `/sites/${id}/members`, { email: member.email, role: 'member' })).status).toBe(201);
    const texts = ['Launch, "v2"', 'Outage =1+1', 'Nuit blanche ✓'];
    for (const [i, text] of texts.entries())
      expect(
        (await api(owner, 'POST', `/sites/${id}/annotations`, i === 1 ? { datetime: '2026-04-02T03:30:00Z', text } : { date: `2026-04-0${i + 1}`, text }))
          .status,
      ).toBe(201);
    const listed = (await api<NoteList>(owner, 'GET', `/sites/${id}/annotations?limit=500`)).body.annotations;
    const file = async (who: Account | undefined, query: string) => {
      const response = await fetch(`${server.sightline.url}/api/v1/sites/${id}/annotations/export?${query}`, {
        headers: who ? { authorization: `Bearer ${who.token}`, 'x-forwarded-for': freshIp() } : { 'x-forwarded-for': freshIp() },
      });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        disposition: response.headers.get('content-disposition'),
        text: await response.text(),
      };
    };
    const ndjson = await file(member, 'format=ndjson');
    expect([ndjson.status, ndjson.type, ndjson.disposition]).toEqual([
      200,
      'application/x-ndjson; charset=utf-8',
      `attachment; filename="sightline-site-${id}-annotations.ndjson"`,
    ]);
    expect(
      ndjson.text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Note),
    ).toEqual(listed);
    // 03:30Z on the 2nd is the evening of the 1st in New York
    expect(listed.map((n) => [n.text, n.local_date])).toEqual([
      [texts[0], '2026-04-01'],
      [texts[1], '2026-04-01'],
      [texts[2], '2026-04-03'],
    ]);

    const csv = await file(owner, 'format=csv&from=2026-04-01&to=2026-04-01');
    expect([csv.status, csv.type, csv.disposition]).toEqual([
      200,
      'text/csv; charset=utf-8',
      `attachment; filename="sightline-site-${id}-annotations-2026-04-01-to-2026-04-01.csv"`,
    ]);
    const [first, second] = listed;
    expect(csv.text).toBe(
      'annotation_id,date,datetime,local_date,text,author,author_key_id,created_at,updated_at\r\n' +
        `${first!.annotation_id},2026-04-01,,2026-04-01,"Launch, ""v2""",${owner.email},${owner.keyId},${first!.created_at},${first!.updated_at}\r\n` +
        `${second!.annotation_id},,${second!.datetime},2026-04-01,Outage =1+1,${owner.email},${owner.keyId},${second!.created_at},${second!.updated_at}\r\n`,
    );
    expect((await file(owner, 'format=csv&from=2027-01-01')).text).toBe(
      'annotation_id,date,datetime,local_date,text,author,author_key_id,created_at,updated_at\r\n',
    );

    for (const [who, status, code] of [
      [stranger, 404, 'unknown_site'],
      [undefined, 401, 'unauthorized'],
    ] as const) {
      const refused = await file(who, 'format=csv');
      expect([refused.status, (JSON.parse(refused.text) as Failure).code]).toEqual([status, code]);
    }
    for (const query of ['format=xlsx', '', 'format=csv&from=2026-13-01', 'format=csv&extra=1']) {
      const bad = await file(owner, query);
      expect([bad.status, (JSON.parse(bad.text) as Failure).code], query).toEqual([400, expect.stringMatching(/^invalid_/)]);
    }
  });

  it('the notes go with the site', async () => {
    const site = await api<{ site_id: number }>(owner, 'POST', '/sites', { url: `https://doomed-${stamp}.sightline-e2e.net` });
    expect((await api(owner, 'POST', `/sites/${site.body.site_id}/annotations`, { date: '2026-01-01', text: 'bye' })).status).toBe(201);
    expect((await api(owner, 'DELETE', `/sites/${site.body.site_id}`)).status).toBe(204);
    expectFailure(await api(owner, 'GET', `/sites/${site.body.site_id}/annotations`), 404, 'unknown_site');
  });

  it('the OpenAPI document describes the routes and the unknown_annotation code', async () => {
    type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
    const response = await fetch(`${server.sightline.url}/api/v1/openapi.yaml`);
    expect(response.status).toBe(200);
    const doc = { body: parseYaml(await response.text()) as Doc };
    expect(
      Object.keys(doc.body.paths['/sites/{id}/annotations'] ?? {})
        .filter((k) => k !== 'servers')
        .sort(),
    ).toEqual(['get', 'post']);
    expect(
      Object.keys(doc.body.paths['/sites/{id}/annotations/{annotation_id}'] ?? {})
        .filter((k) => k !== 'servers')
        .sort(),
    ).toEqual(['delete', 'patch']);
    expect(Object.keys(doc.body.paths['/sites/{id}/annotations/export'] ?? {}).filter((k) => k !== 'servers')).toEqual(['get']);
    expect(doc.body.paths['/share/{hash}/annotations']).toHaveProperty('get');
    expect(doc.body.components.schemas.Error!.properties.code!.enum).toContain('unknown_annotation');
  });
});
