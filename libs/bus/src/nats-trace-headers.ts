import { headers, type MsgHdrs } from '@nats-io/transport-node';
import type { JetStreamPublishOptions } from '@nats-io/jetstream';
import type { TraceHeaders } from '@sightline/telemetry';

/** The W3C trace context headers a NATS message may carry. */
const TRACE_HEADER_NAMES = ['traceparent', 'tracestate'] as const;

/** JetStream publish options: the dedupe id and the trace context as NATS headers. */
export function publishOptions(msgId: string | undefined, trace: TraceHeaders | undefined): Partial<JetStreamPublishOptions> | undefined {
  if (!msgId && !trace) return undefined;
  const options: Partial<JetStreamPublishOptions> = {};
  if (msgId) options.msgID = msgId;
  if (trace) {
    const h = headers();
    for (const [key, value] of Object.entries(trace)) h.set(key, value);
    options.headers = h;
  }
  return options;
}

/** The trace context a delivered NATS message carries, if any. */
export function traceHeadersFrom(h: MsgHdrs | undefined): TraceHeaders | undefined {
  if (!h) return undefined;
  const found: Record<string, string> = {};
  for (const name of TRACE_HEADER_NAMES) {
    const value = h.get(name);
    if (value) found[name] = value;
  }
  return Object.keys(found).length > 0 ? found : undefined;
}
