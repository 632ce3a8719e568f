import { checkCollectedEventFast, CollectedEvent } from '@sightline/events-schema';

/** Step 1: the collected message, or undefined when it is malformed. The hand-written check for the common well-formed message, zod for anything else. */
export function parseMessage(raw: unknown): CollectedEvent | undefined {
  const msg = checkCollectedEventFast(raw);
  if (msg) return msg;
  const parsed = CollectedEvent.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The event's time, or undefined when `ts` names no instant. */
export function eventTime(msg: CollectedEvent): Date | undefined {
  const at = new Date(msg.ts);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
