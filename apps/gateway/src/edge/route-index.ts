import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * A second router holding only the paths fastify serves, so an unmatched request
 * can be told apart: "no such path" (404) from "path exists, other methods" (405,
 * with the methods for the Allow header). Fastify alone answers 404 to both.
 */
export class RouteIndex {
  private readonly router = FindMyWay();
  private readonly methods = new Set<string>();

  add(method: string, url: string): void {
    if (this.router.hasRoute(method as HTTPMethod, url)) return;
    this.router.on(method as HTTPMethod, url, () => {});
    this.methods.add(method);
  }

  /** Methods that would match `path`, sorted; empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    return [...this.methods].filter((method) => this.router.find(method as HTTPMethod, path) !== null).sort();
  }

  static attach(app: FastifyInstance): RouteIndex {
    const index = new RouteIndex();
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) index.add(method, route.url);
    });
    return index;
  }
}
