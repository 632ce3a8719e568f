import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBJECTS } from '@sightline/bus';
import { createLogger } from '@sightline/telemetry';
import { backendGate } from '@sightline/testkit';
import { actorFor, auditContext, freshAccountId, freshUrl, startSitesHarness, type SitesHarness } from '../test-support/sites-harness.js';
import { pgliteTestDb, postgresTestDb, type TestDb } from '../test-support/test-databases.js';
import { waitFor } from '@sightline/testkit';
import { recordSettingsChange, type SettingsChangedPayload } from './settings-audit-consumer.js';

const quietLog = createLogger({ level: 'silent', service: 'sites' });

const backends: Array<[string, () => Promise<TestDb | undefined>]> = [
  ['PGlite', pgliteTestDb],
  [
    'PostgreSQL',
    async () => {
      const gate = await backendGate('postgres');
      return gate.available ? postgresTestDb(gate.url) : undefined;
    },
  ],
];

for (const [backend, openDb] of backends) {
  describe(`settings.changed → sites audit trail (${backend})`, () => {
    let testDb: TestDb | undefined;
    let h: SitesHarness;
    beforeAll(async () => {
      testDb = await openDb();
      if (testDb) h = await startSitesHarness({ db: testDb.db });
    });
    afterAll(async () => {
      await h?.close();
      await testDb?.dispose();
    });
    const test = (title: string, fn: () => Promise<void>) =>
      it(title, async ({ skip }) => {
        if (!testDb) skip();
        await fn();
      });

    const payload = (siteId: number, accountId: number, action = 'site.tracking.update'): SettingsChangedPayload => ({
      site_id: siteId,
      kind: 'tracking',
      version: 2,
      changed_at: '2026-03-02T11:00:00.000Z',
      audit: {
        action,
        account_id: accountId,
        key_id: 'key_x',
        ip: '198.51.100.4',
        user_agent: 'ua/1',
        request_id: 'req_settings_1',
        details: { features: ['pageviews'], version: 2 },
      },
    });
    const entries = async (siteId: number) =>
      (
        await h.db.query<{ action: string; message_id: string | null }>(
          "SELECT action, message_id FROM sites.audit_log WHERE site_id = $1 AND action LIKE 'site.%.update' ORDER BY id",
          [siteId],
        )
      ).rows;

    test('each message becomes one audit entry, listed by ListAudit; a redelivery inserts nothing', async () => {
      const owner = actorFor(freshAccountId());
      const site = (await h.rpc.createSite({ actor: owner, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).site!;
      const msgId = `settings-outbox-${crypto.randomUUID()}`;
      await h.bus.publish(SUBJECTS.settingsChanged, payload(site.siteId, owner.accountId), { msgId });
      await waitFor(async () => (await entries(site.siteId)).length === 1);
      const listed = await h.rpc.listAudit({ actor: owner, siteId: site.siteId, cursor: '', limit: 10 });
      expect(listed.entries[0]).toMatchObject({
        action: 'site.tracking.update',
        siteId: site.siteId,
        accountId: owner.accountId,
        keyId: 'key_x',
        ip: '198.51.100.4',
        userAgent: 'ua/1',
        requestId: 'req_settings_1',
        createdAt: '2026-03-02T11:00:00.000Z',
      });
      // redelivery of the same message (e.g. the ack was lost)
      expect(await recordSettingsChange(h.db, { data: payload(site.siteId, owner.accountId), msgId }, quietLog)).toBe(false);
      expect(await entries(site.siteId)).toEqual([{ action: 'site.tracking.update', message_id: msgId }]);
      // a different message is a different entry
      await h.bus.publish(SUBJECTS.settingsChanged, payload(site.siteId, owner.accountId, 'site.countries.update'), {
        msgId: `settings-outbox-${crypto.randomUUID()}`,
      });
      await waitFor(async () => (await entries(site.siteId)).length === 2);
    });

    test('a site that no longer exists gets no entry; an unknown action is dropped', async () => {
      const owner = actorFor(freshAccountId());
      const site = (await h.rpc.createSite({ actor: owner, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).site!;
      await h.rpc.deleteSite({ actor: owner, audit: auditContext(), siteId: site.siteId });
      expect(await recordSettingsChange(h.db, { data: payload(site.siteId, owner.accountId), msgId: `m-${crypto.randomUUID()}` }, quietLog)).toBe(false);
      expect(await recordSettingsChange(h.db, { data: payload(999_999_999, owner.accountId), msgId: `m-${crypto.randomUUID()}` }, quietLog)).toBe(false);
      const live = (await h.rpc.createSite({ actor: owner, audit: auditContext(), url: freshUrl(), idempotencyKey: '' })).site!;
      expect(
        await recordSettingsChange(h.db, { data: payload(live.siteId, owner.accountId, 'site.drop.everything'), msgId: `m-${crypto.randomUUID()}` }, quietLog),
      ).toBe(false);
      // the consumer acks those and goes on
      await h.bus.publish(SUBJECTS.settingsChanged, payload(site.siteId, owner.accountId), { msgId: `settings-outbox-${crypto.randomUUID()}` });
      await h.bus.publish(SUBJECTS.settingsChanged, payload(live.siteId, owner.accountId, 'site.hostnames.update'), {
        msgId: `settings-outbox-${crypto.randomUUID()}`,
      });
      await waitFor(async () => (await entries(live.siteId)).length === 1);
      expect(await entries(site.siteId)).toEqual([]);
    });
  });
}
