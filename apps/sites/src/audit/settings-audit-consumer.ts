import { STREAM_NAMES, SUBJECTS, startDurableConsumer, type Bus, type DeliveredMessage, type SettingsChanged } from '@sightline/bus';
import { AUDIT_FIELD_BOUNDS, clipAuditText as text, isSettingsAuditAction } from '@sightline/audit';
import type { Db } from '@sightline/db';
import type { Logger } from '@sightline/telemetry';

export type SettingsChangedPayload = SettingsChanged;

export const SETTINGS_AUDIT_DURABLE = 'sites-audit';
const RETRY_START_MS = 5_000;

/**
 * Records one settings.changed message as one audit entry, keyed by the message id
 * (a redelivery inserts nothing). A site that no longer exists gets no entry.
 * Returns whether an entry was inserted.
 */
export async function recordSettingsChange(db: Db, msg: Pick<DeliveredMessage<SettingsChangedPayload>, 'data' | 'msgId'>, log: Logger): Promise<boolean> {
  const data = msg.data;
  const audit = data?.audit;
  const siteId = data?.site_id;
  const accountId = audit?.account_id;
  const at = new Date(typeof data?.changed_at === 'string' ? data.changed_at : NaN);
  if (
    !audit ||
    !Number.isSafeInteger(siteId) ||
    siteId <= 0 ||
    !Number.isSafeInteger(accountId) ||
    accountId <= 0 ||
    !isSettingsAuditAction(audit.action) ||
    Number.isNaN(at.getTime())
  ) {
    log.warn({ msg_id: msg.msgId }, 'settings.changed message not recordable; dropped');
    return false;
  }
  const details = audit.details && typeof audit.details === 'object' ? audit.details : {};
  const { rowCount } = await db.query(
    `INSERT INTO sites.audit_log (action, site_id, account_id, key_id, ip, user_agent, request_id, created_at, details, message_id)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10
     WHERE EXISTS (SELECT 1 FROM sites.sites WHERE id = $2)
     ON CONFLICT (message_id) DO NOTHING`,
    [
      audit.action,
      siteId,
      accountId,
      text(audit.key_id, AUDIT_FIELD_BOUNDS.keyId),
      text(audit.ip, AUDIT_FIELD_BOUNDS.ip),
      text(audit.user_agent, AUDIT_FIELD_BOUNDS.userAgent),
      text(audit.request_id, AUDIT_FIELD_BOUNDS.requestId),
      at,
      JSON.stringify(details),
      msg.msgId === undefined ? null : msg.msgId.slice(0, AUDIT_FIELD_BOUNDS.messageId),
    ],
  );
  return rowCount > 0;
}

export interface SettingsAuditConsumer {
  stop(): Promise<void>;
}

/**
 * The durable consumer `sites-audit` of settings.changed (stream SETTINGS). If the
 * stream is not there yet (settings not started, streams not ensured) it keeps
 * trying in the background instead of failing the sites service.
 */
export function startSettingsAuditConsumer(db: Db, bus: Bus, log: Logger, durable = SETTINGS_AUDIT_DURABLE): SettingsAuditConsumer {
  return startDurableConsumer(
    bus,
    {
      stream: STREAM_NAMES.settings,
      durable,
      filterSubject: SUBJECTS.settingsChanged,
      handler: async (msg) => void (await recordSettingsChange(db, msg, log)),
    },
    { firstDelayMs: RETRY_START_MS, onRetry: (error) => log.warn({ err: error }, 'settings audit consumer could not start; retrying') },
  );
}
