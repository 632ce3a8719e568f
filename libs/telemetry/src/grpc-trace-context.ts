import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import type { Metadata } from '@grpc/grpc-js';

// W3C trace context (traceparent/tracestate) carried in gRPC metadata, so the span
// of a gateway request is the parent of the service's span across the process hop.
const setter: TextMapSetter<Metadata> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<Metadata> = {
  keys: (carrier) => Object.keys(carrier.getMap()),
  get: (carrier, key) => {
    const values = carrier.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

export function injectTraceContext(metadata: Metadata, from: Context = context.active()): void {
  propagation.inject(from, metadata, setter);
}

export function extractTraceContext(metadata: Metadata): Context {
  return propagation.extract(context.active(), metadata, getter);
}
