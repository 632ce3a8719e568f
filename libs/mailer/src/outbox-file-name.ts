import { randomBytes } from 'node:crypto';

/**
 * Names outbox files `<UTC time>-<id>.eml`, e.g. `20250301T101502.123Z-3f9c…-a1b2c3.eml`.
 *
 * - The time is ISO 8601 in its basic form: it sorts as text, and has no `:` (not allowed
 *   in Windows file names).
 * - Times only move forward within a process (bumped by 1 ms on a tie or a clock step back),
 *   so sorting the names gives send order even for sends in the same millisecond.
 * - The id comes from the Message-ID, plus random bytes so two processes cannot collide.
 */
export class OutboxFileNamer {
  private lastMs = 0;

  next(messageId: string, now: number = Date.now()): string {
    this.lastMs = Math.max(now, this.lastMs + 1);
    const stamp = new Date(this.lastMs).toISOString().replace(/[-:]/g, '');
    return `${stamp}-${idPart(messageId)}-${randomBytes(3).toString('hex')}.eml`;
  }
}

/** The local part of `<local@domain>`, reduced to file-name-safe characters. */
function idPart(messageId: string): string {
  const local = messageId.replace(/^<|>$/g, '').split('@')[0] ?? '';
  const safe = local.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40);
  return safe || 'message';
}

/** Temp files start with a dot and do not end in `.eml`, so `*.eml` readers skip them. */
export function tempNameFor(fileName: string): string {
  return `.${fileName}.tmp`;
}
