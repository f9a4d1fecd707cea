import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { Address } from '../../sdk/address.js';
import { normalizeAddress } from '../../sdk/address.js';
import { domainError, type DomainErrorName } from '../../sdk/errors.js';
import {
  definePlugin,
  param,
  type NamespaceSpec,
  type PluginContext,
  type PluginDefinition,
  type RouteSpec,
} from '../../kernel/plugin.js';
import { bondUnits } from './inputs.js';
import { json, utf8Text } from '../../kernel/storage/codec.js';
import { defineLayout } from '../../kernel/storage/layout.js';
import { ProviderService, type LocalRegistration, type StatusView } from './service.js';
import type { ProviderKind } from './registry.js';
import { PROVIDER_ERRORS } from './errors.js';
import type { GaugeSpec } from '../metrics/gauges.js';
import type { ErrorDeclarations } from '../../sdk/errors.js';

/** Every node loads a provider capability; the config may switch it off (`"<name>": { "enabled": false }`). */
export const CapabilityConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'false switches the capability off: its methods answer capability_disabled',
    }),
  },
  { additionalProperties: false },
);

export interface ProviderCapabilitySpec<
  R extends TObject,
  S extends TSchema,
  E extends CapabilityExtension,
  D extends TObject = TObject,
> {
  /** The plugin (and capability) name: `compute`, `omp-storage`. */
  readonly name: string;
  readonly description: string;
  readonly kind: ProviderKind<D>;
  /** The registry plugin's capability the chain rules live in (`oon-registry`). */
  readonly registry: string;
  readonly methods: { readonly register: string; readonly status: string; readonly unregister: string };
  readonly registration: R;
  readonly status: S;
  /** What the chain records of a registration besides the operator and the bond. */
  /** What the registration records on chain besides the bond (the node's role: a compute-role node dedicates its capacity). */
  details(registration: Static<R>, role: string): Static<D>;
  /** The status answer built from this node's registration as the chain sees it. */
  view(view: StatusView<Static<D>>, role: string, service: ProviderService<E, D>): Static<S>;
  /** The capability's own work once registered (the compute job runner), its storage and routes. */
  readonly extension: CapabilityExtensionSpec<E, D>;
  /** Errors of its own, besides the registration's (PROVIDER_ERRORS, which every provider capability declares). */
  readonly errors?: ErrorDeclarations;
  /** Gauges of its state for /metrics (see plugins/metrics/gauges.ts). */
  gauges?(service: ProviderService<E, D>): readonly GaugeSpec[];
}

/** What a capability runs besides its registration: made at init, started with the node, stopped before it. */
export interface CapabilityExtensionSpec<E extends CapabilityExtension, D extends TObject = TObject> {
  readonly namespaces: readonly NamespaceSpec[];
  /** Events it emits, name -> description. */
  readonly events?: Readonly<Record<string, string>>;
  readonly requires?: readonly string[];
  /** Config keys of its own, beside `enabled` (`"<name>": { ... }`); `create` reads them from `ctx.config`. */
  readonly config?: TProperties;
  create(
    ctx: PluginContext<Static<typeof CapabilityConfigSchema> & Record<string, unknown>>,
    service: ProviderService<E, D>,
  ): E;
  readonly routes?: readonly RouteSpec<ProviderService<E, D>>[];
}

export interface CapabilityExtension {
  start(): void | Promise<void>;
  stop(): Promise<void>;
  /** Merged into `/health?verbose`. */
  health?(): Record<string, unknown>;
}

const REGISTER_ERRORS: readonly DomainErrorName[] = [
  'invalid_address',
  'invalid_params',
  'bond_too_low',
  'insufficient_funds',
  'not_synced',
  'already_registered',
  'operator_key_unavailable',
  'capability_disabled',
];

/**
 * A per-node provider capability (compute, storage): loaded on every node so its registration and
 * status methods always answer; registering this node on chain is what switches it on, and the
 * registration (kept in the plugin's namespace) keeps it on across restarts.
 */
export function providerCapabilityPlugin<
  R extends TObject,
  S extends TSchema,
  E extends CapabilityExtension,
  D extends TObject = TObject,
>(spec: ProviderCapabilitySpec<R, S, E, D>): PluginDefinition<typeof CapabilityConfigSchema, ProviderService<E, D>> {
  const purpose = spec.kind.purpose;
  const enabled = (service: ProviderService<E, D>): ProviderService<E, D> => {
    if (!service.enabled)
      throw domainError(
        'capability_disabled',
        `the ${purpose} capability is switched off in this node's config ("${spec.name}": { "enabled": false })`,
        { capability: spec.name },
      );
    return service;
  };
  const registrationLayout = defineLayout(
    `${spec.name}.node`,
    utf8Text('name'),
    json<LocalRegistration<Static<D>>>('registration'),
    '"registration" -> JSON of this node\'s own registration (operator, bond, details, tx hashes)',
  );
  return definePlugin({
    name: spec.name,
    version: '1.0.0',
    description: spec.description,
    requires: [
      'chain-reader',
      'tx-submitter',
      'keys',
      'p2p',
      'sync-status',
      spec.registry,
      ...(spec.extension.requires ?? []),
    ],
    provides: [spec.name],
    config: spec.extension.config
      ? Type.Object({ ...CapabilityConfigSchema.properties, ...spec.extension.config }, { additionalProperties: false })
      : CapabilityConfigSchema,
    namespaces: [registrationLayout, ...(spec.extension.namespaces ?? [])],
    routes: spec.extension.routes ?? [],
    events: spec.extension.events ?? {},
    errors: { ...PROVIDER_ERRORS, ...spec.errors },
    ...(spec.gauges ? { gauges: spec.gauges } : {}),
    health: (service) => service.extension.health?.() ?? {},
    async init(ctx) {
      const keys = ctx.use('keys');
      const service = new ProviderService<E, D>({
        kind: spec.kind,
        chain: ctx.use('chain-reader'),
        sync: ctx.use('sync-status'),
        submitter: ctx.use('tx-submitter'),
        keys: keys.operators,
        // The keystore's: the same identity p2p runs as, known before p2p starts.
        peerId: () => keys.peerId,
        store: ctx.table(registrationLayout),
        log: ctx.log,
        enabled: ctx.config.enabled,
        role: ctx.node.role,
      });
      await service.load();
      service.extension = spec.extension.create(ctx, service);
      return service;
    },
    async start(service, ctx) {
      if (!service.enabled) return void ctx.log.info(`${purpose} capability switched off by config`);
      const { status, registration } = await service.status();
      if (registration)
        ctx.log.info(
          { operator: registration.operator, status },
          `${purpose} capability on: this node is a registered ${purpose} provider`,
        );
      await service.extension.start();
    },
    stop: async (service) => {
      await service.extension.stop();
    },
    rpc: (method) => [
      method({
        name: spec.methods.register,
        summary: `Registers this node as a ${purpose} provider, which switches the capability on: a bond transaction signed by the operator's key (held by this node) moves bond_ogt OGT into its bonded balance.`,
        params: [param('registration', spec.registration)],
        result: spec.status,
        errors: REGISTER_ERRORS,
        handler: async ([registration], { service }) => {
          const checked = registration as Static<R> & { operator: string; bond_ogt: number | string };
          const bond = bondUnits(checked.bond_ogt);
          await enabled(service).register(
            normalizeAddress(checked.operator) as Address,
            bond,
            spec.details(checked, service.role),
          );
          return spec.view(await service.status(), service.role, service);
        },
      }),
      method({
        name: spec.methods.status,
        summary: `This node's ${purpose} registration: unregistered, pending (bond not yet in a block), active, or unbonding (with releaseAt).`,
        params: [],
        result: spec.status,
        errors: ['capability_disabled'],
        handler: async (_params, { service }) => spec.view(await enabled(service).status(), service.role, service),
      }),
      method({
        name: spec.methods.unregister,
        summary: `Starts unbonding this node's ${purpose} registration; the bond returns to the operator after the chain's unbonding period. A second call while unbonding is refused.`,
        params: [],
        result: spec.status,
        errors: ['not_found', 'invalid_params', 'operator_key_unavailable', 'capability_disabled'],
        handler: async (_params, { service }) => {
          await enabled(service).unregister();
          return spec.view(await service.status(), service.role, service);
        },
      }),
    ],
  });
}
