import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Type from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { domainError } from '../../sdk/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import {
  param,
  optionalParam,
  type Connection,
  type RpcMethod,
  type SubscriptionKind,
  type SubscriptionSink,
} from '../plugin.js';

interface RegisteredKind {
  readonly spec: SubscriptionKind;
  readonly owner: string;
  readonly service: unknown;
  readonly options: Validator | undefined;
}

interface Active {
  readonly sink: Sink;
  stop: (() => void) | undefined;
}

export class DuplicateSubscriptionKindError extends Error {
  override name = 'DuplicateSubscriptionKindError';
}

/**
 * A subscription's outlet. It holds events back until the `svc_subscribe` reply has left, so a
 * client always learns the id before the first event, and nothing that happened meanwhile is lost.
 */
class Sink implements SubscriptionSink {
  private held: unknown[] | undefined = [];
  closed = false;

  constructor(
    readonly id: string,
    private readonly connection: Connection,
    private readonly namespace: string,
  ) {}

  send(result: unknown): void {
    if (this.closed) return;
    if (this.held) {
      this.held.push(result);
      return;
    }
    const ok = this.connection.send(
      `{"jsonrpc":"2.0","method":"${this.namespace}_subscription","params":{"subscription":"${this.id}","result":${JSON.stringify(result)}}}`,
    );
    if (!ok) this.closed = true;
  }

  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const result of held) this.send(result);
  }
}

/** Subscription kinds from every plugin, and the live subscriptions of every connection. */
export class SubscriptionRegistry {
  private readonly kinds = new Map<string, RegisteredKind>();
  private readonly byConnection = new Map<Connection, Map<string, Active>>();

  constructor(
    private readonly bus: EventBus,
    private readonly log: Logger,
    private readonly maxPerConnection: number,
  ) {}

  /** Kinds are named `<namespace>_<kind>` here (`svc_newHeads`, `eth_logs`). */
  add(spec: SubscriptionKind, owner: string, service: unknown): void {
    const existing = this.kinds.get(`${spec.namespace ?? 'svc'}_${spec.kind}`);
    if (existing)
      throw new DuplicateSubscriptionKindError(
        `subscription kind "${spec.kind}" of plugin "${owner}" is already registered by plugin "${existing.owner}"`,
      );
    this.kinds.set(`${spec.namespace ?? 'svc'}_${spec.kind}`, {
      spec,
      owner,
      service,
      options: spec.options ? Compile(spec.options) : undefined,
    });
  }

  list(namespace = 'svc'): { kind: string; summary: string; owner: string }[] {
    return [...this.kinds.values()]
      .filter((k) => (k.spec.namespace ?? 'svc') === namespace)
      .map((k) => ({ kind: k.spec.kind, summary: k.spec.summary, owner: k.owner }));
  }

  async subscribe(connection: Connection, kind: string, options: unknown, namespace = 'svc'): Promise<string> {
    const registered = this.kinds.get(`${namespace}_${kind}`);
    if (!registered)
      throw domainError(
        'invalid_params',
        `unknown subscription kind "${kind}"; kinds: ${this.list(namespace)
          .map((k) => k.kind)
          .join(', ')}`,
        { field: 'kind' },
      );
    if (options !== undefined && registered.options && !registered.options.Check(options)) {
      const error = registered.options.Errors(options)[0] as { instancePath?: string; message?: string } | undefined;
      throw domainError(
        'invalid_params',
        `options ${error?.instancePath || ''} ${error?.message ?? 'are invalid'}`.replace('  ', ' '),
        { field: 'options' },
      );
    }
    if (options !== undefined && !registered.options)
      throw domainError('invalid_params', `subscription kind "${kind}" takes no options`, { field: 'options' });
    let active = this.byConnection.get(connection);
    if (!active) {
      active = new Map();
      this.byConnection.set(connection, active);
      connection.onClose(() => this.closeAll(connection));
    }
    if (active.size >= this.maxPerConnection)
      throw domainError('invalid_params', `a connection may hold at most ${this.maxPerConnection} subscriptions`, {
        field: 'kind',
      });
    const id = `0x${randomBytes(16).toString('hex')}`;
    const sink = new Sink(id, connection, namespace);
    const entry: Active = { sink, stop: undefined };
    active.set(id, entry);
    const scoped = this.bus.scoped(registered.owner);
    try {
      const stop = await registered.spec.start(sink, options, registered.service, scoped);
      entry.stop = () => {
        stop();
        scoped.dispose();
      };
    } catch (error) {
      active.delete(id);
      scoped.dispose();
      throw error;
    }
    if (sink.closed) entry.stop();
    // Open after the reply to svc_subscribe has gone out (it leaves before the next turn).
    void nextTurn().then(() => sink.open());
    return id;
  }

  unsubscribe(connection: Connection, id: string): boolean {
    const entry = this.byConnection.get(connection)?.get(id);
    if (!entry) return false;
    this.byConnection.get(connection)!.delete(id);
    entry.sink.closed = true;
    entry.stop?.();
    return true;
  }

  private closeAll(connection: Connection): void {
    const active = this.byConnection.get(connection);
    this.byConnection.delete(connection);
    for (const entry of active?.values() ?? []) {
      entry.sink.closed = true;
      try {
        entry.stop?.();
      } catch (error) {
        this.log.error({ err: error }, 'stopping a subscription failed');
      }
    }
  }

  /** `svc_subscribe` and `svc_unsubscribe`, the kernel's methods over this registry, and the same pair for every other namespace a kind names. */
  methods(): RpcMethod[] {
    const needsWebSocket = (connection: Connection | undefined): Connection => {
      if (!connection)
        throw domainError(
          'subscriptions_need_websocket',
          'subscriptions are served over WebSocket: connect to ws://<node>/ and subscribe there',
        );
      return connection;
    };
    const namespaces = new Set(['svc', ...[...this.kinds.values()].map((k) => k.spec.namespace ?? 'svc')]);
    return [...namespaces].flatMap((ns): RpcMethod[] => [
      {
        name: `${ns}_subscribe`,
        summary: 'Subscribes this WebSocket connection to a stream of events; returns the subscription id.',
        description: `Kinds: ${
          this.list(ns)
            .map((k) => `\`${k.kind}\` (${k.summary})`)
            .join(', ') || 'none'
        }. Events arrive as {"jsonrpc":"2.0","method":"${ns}_subscription","params":{"subscription":"<id>","result":{...}}}.`,
        params: [
          param('kind', Type.String({ minLength: 1 })),
          optionalParam('options', Type.Object({}, { additionalProperties: true })),
        ],
        result: Type.String({ pattern: '^0x[0-9a-f]{32}$' }),
        errors: ['invalid_params', 'subscriptions_need_websocket'],
        handler: (params, call) => this.subscribe(needsWebSocket(call.connection), params[0] as string, params[1], ns),
      },
      {
        name: `${ns}_unsubscribe`,
        summary: 'Ends a subscription of this connection: true, or false if it is unknown.',
        params: [param('subscription', Type.String())],
        result: Type.Boolean(),
        errors: ['subscriptions_need_websocket'],
        handler: (params, call) => this.unsubscribe(needsWebSocket(call.connection), params[0] as string),
      },
    ]);
  }
}
