import { Metadata, credentials, type CallOptions, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { fromGrpcError } from '@sightline/errors';
import { injectTraceContext } from '@sightline/telemetry';
import { REQUEST_ID_METADATA_KEY } from './call-context.js';
import { MAX_RECONNECT_BACKOFF_MS, serviceConfigOf, type ChannelPolicy } from './channel-policy.js';

const tracer = trace.getTracer('@sightline/grpc-kit');

type ClientConstructor<C> = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => C;

/**
 * A client for one service address (`host:port`, or `dns:///name:port` for every replica
 * behind a name). Channels are long-lived and shared by all calls. With a `policy`, calls
 * take turns over the resolved replicas and its reads are retried (channel-policy.ts).
 */
export function createClient<C extends Client>(Ctor: ClientConstructor<C>, address: string, policy?: ChannelPolicy): C {
  return new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
    'grpc.enable_retries': 1,
    ...(policy ? { 'grpc.service_config': serviceConfigOf(policy), 'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS } : {}),
    ...(policy?.reresolveMinMs !== undefined ? { 'grpc.dns_min_time_between_resolutions_ms': policy.reresolveMinMs } : {}),
  });
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

export interface CallOptionsLite {
  requestId: string;
  deadlineMs: number;
}

/**
 * One unary call as a promise: carries the request id and trace context, bounds
 * the call by a deadline, and turns a failure back into the service's ApiError.
 */
export function callUnary<Req, Res>(client: Client, method: UnaryMethod<Req, Res>, name: string, request: Req, options: CallOptionsLite): Promise<Res> {
  const span = tracer.startSpan(`grpc.client ${name}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'grpc', 'rpc.method': name } });
  const spanContext = trace.setSpan(context.active(), span);
  const metadata = new Metadata();
  metadata.set(REQUEST_ID_METADATA_KEY, options.requestId);
  injectTraceContext(metadata, spanContext);
  return new Promise<Res>((resolve, reject) => {
    method.call(client, request, metadata, { deadline: Date.now() + options.deadlineMs }, (error, response) => {
      if (error) {
        const apiError = fromGrpcError(error);
        span.setAttribute('sightline.error_code', apiError.code);
        if (apiError.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        reject(apiError);
        return;
      }
      span.end();
      resolve(response);
    });
  });
}
