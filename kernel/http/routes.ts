import { Hono } from 'hono';
import type { HttpMethod } from '../plugin.js';

export interface MountedRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly owner: string;
  readonly summary: string;
}

export class RouteConflictError extends Error {
  override name = 'RouteConflictError';
}

/** Every HTTP route but `/`, mounted before the server listens; the table can be listed. */
export class RouteTable {
  readonly app = new Hono();
  private readonly mounted = new Map<string, MountedRoute>();

  constructor() {
    this.app.notFound((c) => c.text('not found', 404));
  }

  add(route: MountedRoute, handler: Parameters<Hono['on']>[2]): void {
    if (route.path === '/' || !route.path.startsWith('/')) throw new RouteConflictError(`plugin "${route.owner}": route path "${route.path}" must start with / and must not be / (JSON-RPC owns it)`);
    const key = `${route.method} ${route.path}`;
    const existing = this.mounted.get(key);
    if (existing) throw new RouteConflictError(`route ${key} of plugin "${route.owner}" is already mounted by plugin "${existing.owner}"`);
    this.mounted.set(key, route);
    this.app.on(route.method, route.path, handler);
  }

  list(): MountedRoute[] {
    return [...this.mounted.values()];
  }
}
