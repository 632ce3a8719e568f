import { beforeAll, describe, expect } from 'vitest';
import type { commonV1, sitesV1 } from '@sightline/proto';
import { expectApiError } from '@sightline/testkit';
import { auditContext, type SitesHarness } from '../test-support/sites-harness.js';
import type { SitesSuite } from '../test-support/sites-suite.js';

const window = (more: Partial<sitesV1.AnnotationWindow> = {}): sitesV1.AnnotationWindow => ({ from: '', to: '', limit: 0, cursor: '', ...more });

/** annotations: registered on both databases by sites.pglite.test.ts and sites.postgres.test.ts. */
export function annotationsSuite(suite: SitesSuite): void {
  const { test, owner, create, auditActions, sharedSite } = suite;
  let h: SitesHarness;
  beforeAll(() => void (h = suite.harness()));

  const note = (actor: commonV1.Actor, siteId: number, more: Partial<sitesV1.CreateAnnotationRequest>) =>
    h.rpc.createAnnotation({ actor, audit: auditContext(), siteId, text: 'note', ...more });
  const texts = (answer: sitesV1.ListAnnotationsResponse) => answer.annotations.map((a) => a.text);

  describe('annotations', () => {
    // Europe/Berlin: CET (+01:00) until 2026-03-29 01:00Z, CEST (+02:00) after
    test('day and timed notes, their local day in the site time zone across DST, listed in time order to every role', async () => {
      const { owner: o, admin, member, site } = await sharedSite();
      expect(site.timezone).toBe('Europe/Berlin');
      const lateSaturday = await note(o, site.siteId, { datetime: '2026-03-28T22:59:59Z', text: 'E: 23:59:59 CET on the 28th' });
      const dayNote = await note(o, site.siteId, { date: '2026-03-29', text: '  A: the whole 29th  ' });
      const secondDay = await note(admin, site.siteId, { date: '2026-03-29', text: 'F: also the 29th' });
      const afterMidnight = await note(o, site.siteId, { datetime: '2026-03-28T23:30:00Z', text: 'B: 00:30 CET on the 29th' });
      const afterSwitch = await note(o, site.siteId, { datetime: '2026-03-29T03:30:00+02:00', text: 'C: 03:30 CEST' });
      const nextDay = await note(o, site.siteId, { datetime: '2026-03-29T22:30:00.250Z', text: 'D: 00:30 CEST on the 30th' });
      expect(dayNote).toEqual({
        annotationId: expect.any(Number),
        siteId: site.siteId,
        date: '2026-03-29',
        datetime: undefined,
        localDate: '2026-03-29',
        text: 'A: the whole 29th',
        authorAccountId: o.accountId,
        authorKeyId: o.keyId,
        createdAt: h.time.now().toISOString(),
        updatedAt: h.time.now().toISOString(),
      });
      expect(secondDay.authorAccountId).toBe(admin.accountId);
      expect([lateSaturday, afterMidnight, afterSwitch, nextDay].map((a) => [a.date, a.datetime, a.localDate])).toEqual([
        [undefined, '2026-03-28T22:59:59.000Z', '2026-03-28'],
        [undefined, '2026-03-28T23:30:00.000Z', '2026-03-29'],
        [undefined, '2026-03-29T01:30:00.000Z', '2026-03-29'],
        [undefined, '2026-03-29T22:30:00.250Z', '2026-03-30'],
      ]);
      const all = await h.rpc.listAnnotations({ actor: member, siteId: site.siteId, window: window() });
      expect(all).toEqual({ annotations: [lateSaturday, dayNote, secondDay, afterMidnight, afterSwitch, nextDay], nextCursor: '', timezone: 'Europe/Berlin' });
      const sunday = await h.rpc.listAnnotations({ actor: member, siteId: site.siteId, window: window({ from: '2026-03-29', to: '2026-03-29' }) });
      expect(texts(sunday)).toEqual(['A: the whole 29th', 'F: also the 29th', 'B: 00:30 CET on the 29th', 'C: 03:30 CEST']);
      expect(texts(await h.rpc.listAnnotations({ actor: member, siteId: site.siteId, window: window({ from: '2026-03-30' }) }))).toEqual([
        'D: 00:30 CEST on the 30th',
      ]);
      expect(texts(await h.rpc.listAnnotations({ actor: member, siteId: site.siteId, window: window({ to: '2026-03-28' }) }))).toEqual([
        'E: 23:59:59 CET on the 28th',
      ]);
      expect(texts(await h.rpc.listAnnotations({ actor: member, siteId: site.siteId, window: window({ from: '2026-04-01', to: '2026-04-30' }) }))).toEqual([]);
      // the public dashboard's read answers the same notes by site id alone
      expect(await h.rpc.listSharedAnnotations({ siteId: site.siteId, window: window() })).toEqual(all);
      await expectApiError(h.rpc.listSharedAnnotations({ siteId: 999_999_999, window: window() }), 'unknown_site');
      await expectApiError(h.rpc.listSharedAnnotations({ siteId: 0, window: window() }), 'unknown_site');
    });

    test('pages with limit and cursor through ties; a cursor of another site or a mangled one is invalid_request', async () => {
      const o = owner();
      const site = await create(o);
      const other = await create(o);
      const moments: Array<Partial<sitesV1.CreateAnnotationRequest>> = [
        { date: '2026-06-02' },
        { date: '2026-06-01' },
        { datetime: '2026-06-01T10:00:00Z' },
        { date: '2026-06-01' },
        { datetime: '2026-06-01T10:00:00Z' },
      ];
      for (const [i, more] of moments.entries()) await note(o, site.siteId, { ...more, text: `n${i + 1}` });
      const expected = ['n2', 'n4', 'n3', 'n5', 'n1'];
      const seen: string[] = [];
      let cursor = '';
      let pages = 0;
      do {
        const page = await h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ limit: 2, cursor }) });
        seen.push(...texts(page));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== '' && pages < 10);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      const first = await h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ limit: 2 }) });
      await expectApiError(
        h.rpc.listAnnotations({ actor: o, siteId: other.siteId, window: window({ cursor: first.nextCursor }) }),
        'invalid_request',
        /cursor/,
      );
      await expectApiError(h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ cursor: 'not a cursor' }) }), 'invalid_request', /cursor/);
      await expectApiError(
        h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ cursor: Buffer.from('{"s":1}').toString('base64url') }) }),
        'invalid_request',
        /cursor/,
      );
      await expectApiError(h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ limit: 501 }) }), 'invalid_request', /limit/);
      await expectApiError(
        h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ from: '2026-06-02', to: '2026-06-01' }) }),
        'invalid_request',
        /after/,
      );
      await expectApiError(h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ from: '2026-02-30' }) }), 'invalid_request', /from/);
      expect(texts(await h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window({ limit: 500 }) }))).toEqual(expected);
    });

    test('bad input answers invalid_request naming the field, and nothing is written', async () => {
      const o = owner();
      const site = await create(o);
      const bad = (more: Partial<sitesV1.CreateAnnotationRequest>) => note(o, site.siteId, more);
      await expectApiError(bad({}), 'invalid_request', /date .* or datetime .* is required/);
      await expectApiError(bad({ date: '2026-01-01', datetime: '2026-01-01T00:00:00Z' }), 'invalid_request', /not both/);
      for (const date of ['2026-1-01', '2026-02-29', '1899-12-31', '2300-01-01', '2026-01-01T00:00:00Z', ''])
        await expectApiError(bad({ date }), 'invalid_request', /date must be/);
      for (const datetime of [
        '2026-03-29T12:00:00',
        '2026-03-29 12:00:00Z',
        '2026-03-29T24:00:00Z',
        '2026-03-29T12:60Z',
        '2026-03-29T12:00:00+24:00',
        '2026-02-30T12:00:00Z',
        '2026-03-29T12:00:00.1234Z',
        '1899-12-31T23:00:00Z',
        'yesterday',
      ]) {
        await expectApiError(bad({ datetime }), 'invalid_request', /datetime must be/);
      }
      await expectApiError(bad({ date: '2026-01-01', text: '   ' }), 'invalid_request', /text is required/);
      await expectApiError(bad({ date: '2026-01-01', text: 'x'.repeat(281) }), 'invalid_request', /280/);
      await expectApiError(bad({ date: '2026-01-01', text: 'two\nlines' }), 'invalid_request', /control/);
      await expectApiError(bad({ date: '2026-01-01', text: 'hidden\u200bspace' }), 'invalid_request', /invisible/);
      await expectApiError(bad({ date: '2026-01-01', text: 'right-to-left \u202e override' }), 'invalid_request', /invisible/);
      expect(await auditActions(site.siteId)).toEqual(['site.create']);
      expect((await h.db.query('SELECT id FROM sites.annotations WHERE site_id = $1', [site.siteId])).rows).toEqual([]);
      // the bounds themselves are accepted: 280 code points after trimming (an emoji counts once), the span's ends
      expect((await bad({ date: '2026-01-01', text: ` ${'x'.repeat(280)} ` })).text).toHaveLength(280);
      expect([...(await bad({ date: '2026-01-01', text: '📈'.repeat(280) })).text]).toHaveLength(280);
      expect((await bad({ date: '1900-01-01' })).localDate).toBe('1900-01-01');
      expect((await bad({ datetime: '2299-12-31T23:59:59+00:00' })).datetime).toBe('2299-12-31T23:59:59.000Z');
      expect((await bad({ date: '2028-02-29', text: '<img src=x onerror=alert(1)> "quoted, text"' })).text).toBe('<img src=x onerror=alert(1)> "quoted, text"');
    });

    test('update changes text or moment, keeps the author, audits before and after; unknown_annotation for another site note', async () => {
      const { owner: o, admin, site } = await sharedSite();
      const other = await create(o);
      const theirs = await note(o, other.siteId, { date: '2026-01-01' });
      const mine = await note(o, site.siteId, { date: '2026-01-05', text: 'Launch' });
      h.time.advance(60_000);
      const moved = await h.rpc.updateAnnotation({
        actor: admin,
        audit: auditContext(),
        siteId: site.siteId,
        annotationId: mine.annotationId,
        datetime: '2026-01-05T23:15:00Z',
      });
      expect(moved).toEqual({ ...mine, date: undefined, datetime: '2026-01-05T23:15:00.000Z', localDate: '2026-01-06', updatedAt: h.time.now().toISOString() });
      const renamed = await h.rpc.updateAnnotation({
        actor: admin,
        audit: auditContext(),
        siteId: site.siteId,
        annotationId: mine.annotationId,
        text: ' Launch (v2) ',
      });
      expect(renamed).toMatchObject({ datetime: '2026-01-05T23:15:00.000Z', text: 'Launch (v2)', authorAccountId: o.accountId });
      const back = await h.rpc.updateAnnotation({
        actor: o,
        audit: auditContext(),
        siteId: site.siteId,
        annotationId: mine.annotationId,
        date: '2026-01-04',
        text: 'Launch',
      });
      expect(back).toMatchObject({ date: '2026-01-04', datetime: undefined, localDate: '2026-01-04', text: 'Launch' });
      const update = (more: Partial<sitesV1.UpdateAnnotationRequest>) =>
        h.rpc.updateAnnotation({ actor: o, audit: auditContext(), siteId: site.siteId, annotationId: mine.annotationId, ...more });
      await expectApiError(update({}), 'invalid_request', /at least one/);
      await expectApiError(update({ date: '2026-01-01', datetime: '2026-01-01T00:00:00Z' }), 'invalid_request', /not both/);
      await expectApiError(update({ text: '' }), 'invalid_request', /text/);
      await expectApiError(update({ annotationId: theirs.annotationId, text: 'hijack' }), 'unknown_annotation');
      await expectApiError(update({ annotationId: 999_999_999, text: 'x' }), 'unknown_annotation');
      await expectApiError(update({ annotationId: 0, text: 'x' }), 'unknown_annotation');
      expect((await h.rpc.listAnnotations({ actor: o, siteId: other.siteId, window: window() })).annotations).toEqual([theirs]);
      const { rows } = await h.db.query<{ action: string; details: unknown }>(
        "SELECT action, details FROM sites.audit_log WHERE site_id = $1 AND action LIKE 'annotation.%' ORDER BY id",
        [site.siteId],
      );
      expect(rows.map((r) => r.action)).toEqual(['annotation.create', 'annotation.update', 'annotation.update', 'annotation.update']);
      expect(rows[0]!.details).toEqual({ annotation_id: mine.annotationId, date: '2026-01-05', datetime: null, text: 'Launch' });
      expect(rows[1]!.details).toEqual({
        annotation_id: mine.annotationId,
        before: { date: '2026-01-05', datetime: null, text: 'Launch' },
        after: { date: null, datetime: '2026-01-05T23:15:00.000Z', text: 'Launch' },
      });
    });

    test('delete: unknown_annotation for a missing or foreign note, then gone and audited; a time zone change moves timed notes only', async () => {
      const o = owner();
      const site = await create(o);
      const other = await create(o);
      const theirs = await note(o, other.siteId, { date: '2026-01-01' });
      const day = await note(o, site.siteId, { date: '2026-03-29', text: 'day' });
      const timed = await note(o, site.siteId, { datetime: '2026-03-29T02:30:00Z', text: 'timed' });
      const del = (annotationId: number) => h.rpc.deleteAnnotation({ actor: o, audit: auditContext(), siteId: site.siteId, annotationId });
      await expectApiError(del(theirs.annotationId), 'unknown_annotation');
      await expectApiError(del(999_999_999), 'unknown_annotation');
      await h.rpc.updateSite({ actor: o, audit: auditContext(), siteId: site.siteId, timezone: 'America/New_York' });
      // 02:30Z is 22:30 EDT on the 28th (New York's DST began on 8 March)
      const moved = await h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window() });
      expect(moved.timezone).toBe('America/New_York');
      expect(moved.annotations.map((a) => [a.text, a.localDate])).toEqual([
        ['timed', '2026-03-28'],
        ['day', '2026-03-29'],
      ]);
      await expect(del(timed.annotationId)).resolves.toEqual({});
      await expectApiError(del(timed.annotationId), 'unknown_annotation');
      expect((await h.rpc.listAnnotations({ actor: o, siteId: site.siteId, window: window() })).annotations.map((a) => a.annotationId)).toEqual([
        day.annotationId,
      ]);
      expect(await auditActions(site.siteId)).toEqual(['site.create', 'annotation.create', 'annotation.create', 'site.update', 'annotation.delete']);
      const { rows } = await h.db.query<{ details: unknown }>("SELECT details FROM sites.audit_log WHERE site_id = $1 AND action = 'annotation.delete'", [
        site.siteId,
      ]);
      expect(rows[0]!.details).toEqual({ annotation_id: timed.annotationId, date: null, datetime: '2026-03-29T02:30:00.000Z', text: 'timed' });
    });

    test('at most 1000 notes per site; the site deletion removes them', async () => {
      const o = owner();
      const site = await create(o);
      await h.db.query(
        "INSERT INTO sites.annotations (site_id, day, text, author_account_id, author_key_id, created_at, updated_at) SELECT $1, DATE '2026-01-01' + i, 'n' || i, $2, 'k', now(), now() FROM generate_series(1, 999) AS i",
        [site.siteId, o.accountId],
      );
      await note(o, site.siteId, { date: '2026-01-01', text: 'the thousandth' });
      await expectApiError(note(o, site.siteId, { date: '2026-01-01', text: 'one more' }), 'invalid_request', /1000/);
      await h.rpc.deleteSite({ actor: o, audit: auditContext(), siteId: site.siteId });
      expect((await h.db.query('SELECT count(*)::int AS n FROM sites.annotations WHERE site_id = $1', [site.siteId])).rows).toEqual([{ n: 0 }]);
      await expectApiError(h.rpc.listSharedAnnotations({ siteId: site.siteId, window: window() }), 'unknown_site');
    });
  });
}
