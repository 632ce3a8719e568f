import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { isApiError, toGrpcError } from '@sightline/errors';
import { extractTraceContext, grpcServerDuration, grpcServerHandled, type Logger } from '@sightline/telemetry';
import { requestIdFrom, type CallContext } from './call-context.js';

const tracer = trace.getTracer('@sightline/grpc-kit');

export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Promise<Res>;

/**
 * Adapts an async handler to grpc-js. The caller's trace context and request id
 * come from metadata; an ApiError crosses back intact (code in trailing metadata);
 * anything else is logged here with its stack and leaves as a bare INTERNAL, so no
 * internals reach the client.
 */
export function unary<Req, Res>(method: string, log: Logger, handler: UnaryHandler<Req, Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const requestId = requestIdFrom(call.metadata);
    const ctx: CallContext = { requestId, metadata: call.metadata, log: log.child({ method, request_id: requestId }) };
    const stopTimer = grpcServerDuration.startTimer({ method });
    const parent = extractTraceContext(call.metadata);
    const span = tracer.startSpan(`grpc.server ${method}`, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.method': method } }, parent);
    context
      .with(trace.setSpan(parent, span), () => handler(call.request, ctx))
      .then(
        (response) => {
          span.end();
          stopTimer();
          grpcServerHandled.inc({ method, code: 'OK' });
          callback(null, response);
        },
        (error: unknown) => {
          if (isApiError(error)) {
            span.setAttribute('sightline.error_code', error.code);
          } else {
            ctx.log.error({ err: error }, 'handler failed');
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
          stopTimer();
          const answer = toGrpcError(error);
          grpcServerHandled.inc({ method, code: status[answer.code] ?? String(answer.code) });
          callback(answer);
        },
      );
  };
}
