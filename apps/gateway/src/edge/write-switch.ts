import type { FastifyInstance } from 'fastify';
import { ApiError } from '@sightline/errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Whether the route changes state. Every route must say so explicitly
     * (the gateway refuses to start otherwise), because the write switch relies on it.
     */
    write?: boolean;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With writes disabled, every route declared `write: true` answers 404
 * `write_disabled` before anything else runs (authentication included), while
 * reads keep working. A non-GET route that forgets to declare itself is a
 * programming error caught at start-up, not a silent hole in the switch.
 */
export function registerWriteSwitch(app: FastifyInstance, writesEnabled: boolean): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const declared = route.config?.write;
    if (declared === undefined && methods.some((method) => !READ_METHODS.has(method))) {
      throw new Error(`route ${methods.join(',')} ${route.url} must declare config.write (true or false)`);
    }
    if (declared !== true || writesEnabled) return;
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    route.onRequest = [
      async () => {
        throw new ApiError('write_disabled', 'Writes are switched off on this deployment; reads keep working.');
      },
      ...existing,
    ];
  });
}
