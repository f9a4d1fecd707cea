import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { refusalBody, type GuardChain } from '../rpc/guards.js';
import type { ClientAddressResolver } from './client-address.js';
import type { CorsPolicy } from './cors.js';
import { admit } from './admission.js';
import type { HttpMethod } from '../plugin.js';

export interface MountedRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly owner: string;
  readonly summary: string;
  readonly access: 'public' | 'protected';
  readonly home?: boolean;
}

export class RouteConflictError extends Error {
  override name = 'RouteConflictError';
}

/** Every HTTP route but `/`, mounted before the server listens; the table can be listed. */
export class RouteTable {
  readonly app = new Hono<{ Bindings: HttpBindings }>();
  private readonly mounted = new Map<string, MountedRoute>();

  constructor(
    readonly guards: GuardChain,
    readonly clients: ClientAddressResolver,
    readonly cors: CorsPolicy,
  ) {
    this.app.notFound((c) => c.text('not found', 404));
  }

  add(route: MountedRoute, handler: (c: Context) => Response | Promise<Response>): void {
    if (route.path === '/' || !route.path.startsWith('/'))
      throw new RouteConflictError(
        `plugin "${route.owner}": route path "${route.path}" must start with / and must not be / (JSON-RPC owns it)`,
      );
    const key = `${route.method} ${route.path}`;
    const existing = this.mounted.get(key);
    if (existing)
      throw new RouteConflictError(
        `route ${key} of plugin "${route.owner}" is already mounted by plugin "${existing.owner}"`,
      );
    const home = this.home();
    if (route.home && home)
      throw new RouteConflictError(
        `route ${key} of plugin "${route.owner}" wants to be the browsers' home page, which is ${home.path} of plugin "${home.owner}"`,
      );
    this.mounted.set(key, route);
    this.app.on(route.method, route.path, async (c) => {
      const incoming = c.env.incoming;
      const admission =
        route.access === 'protected'
          ? admit(this, {
              transport: 'http',
              phase: 'route',
              remoteAddress: incoming.socket.remoteAddress ?? '',
              headers: incoming.headers,
            })
          : { headers: this.cors.headers(incoming.headers.origin as string | undefined), refusal: undefined };
      if (admission.refusal)
        return new Response(refusalBody(admission.refusal), {
          status: admission.refusal.status,
          headers: { 'content-type': 'application/json', ...admission.headers },
        });
      // On the outgoing message before the handler runs: they go out with a Response it returns and
      // with a body it streams itself (a file, answered with RESPONSE_ALREADY_SENT).
      for (const [name, value] of Object.entries(admission.headers)) c.env.outgoing.setHeader(name, value);
      return handler(c);
    });
  }

  /** The page a browser asking for `/` is sent to, if a plugin offers one. */
  home(): MountedRoute | undefined {
    for (const route of this.mounted.values()) if (route.home) return route;
    return undefined;
  }

  list(): MountedRoute[] {
    return [...this.mounted.values()];
  }
}
