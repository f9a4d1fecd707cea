import { formatAmountShort } from '../../sdk/amount.js';
import type { ProviderService } from '../providers/service.js';
import { providerCapabilityPlugin } from '../providers/capability.js';
import { decimalText } from '../providers/inputs.js';
import { OMP, type StorageDetailsSchema } from '../omp/provider-kind.js';
import { StorageRegistrationSchema, StorageStatusSchema } from './schemas.js';
import Type from 'typebox';
import { cbor, utf8Text } from '../../kernel/storage/codec.js';
import { defineLayout } from '../../kernel/storage/layout.js';
import type { ObjectRecord } from '../../objects/store.js';
import { StorageObjects } from './objects.js';
import { objectRoutes } from './routes.js';
import { DealKeeper } from './deal-keeper.js';
import { readRecord } from '../providers/registry.js';
import { OBJECT_ERRORS } from '../../objects/errors.js';

/** The objects this node holds: CID -> size, media type, commitment (segment tree root and piece roots), the DAG's inner nodes. */
const OBJECTS = defineLayout(
  'omp-storage.objects',
  utf8Text('CID'),
  cbor<ObjectRecord>('object record: size, mediaType, format, root, pieceRoots, inner DAG nodes, storedAt'),
);
const DEFAULT_MAX_OBJECT_BYTES = 1024 * 1_048_576;
const DEFAULT_GRACE_SECONDS = 3600;

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    'omp-storage': ProviderService<StorageObjects, typeof StorageDetailsSchema>;
  }
}

/** The storage capability (OMP) on every node: an add-on to any role, switched on by `svc_ompRegisterStorageNode`. */
export default providerCapabilityPlugin<
  typeof StorageRegistrationSchema,
  typeof StorageStatusSchema,
  StorageObjects,
  typeof StorageDetailsSchema
>({
  name: 'omp-storage',
  errors: OBJECT_ERRORS,
  gauges: (service) => [
    {
      name: 'svc_omp_objects',
      help: 'objects this node holds as a storage provider',
      collect: (set) => set(service.extension.usage().objects),
    },
    {
      name: 'svc_omp_stored_bytes',
      help: 'bytes of the objects this node holds',
      collect: (set) => set(service.extension.usage().usedBytes),
    },
  ],
  description:
    'storage provider (OMP), on every node: registering bonds this node on chain (operator key it holds) and switches the capability on; status, unbonding',
  kind: OMP,
  registry: 'omp-registry',
  methods: {
    register: 'svc_ompRegisterStorageNode',
    status: 'svc_ompStorageStatus',
    unregister: 'svc_ompUnregisterStorageNode',
  },
  registration: StorageRegistrationSchema,
  status: StorageStatusSchema,
  details: (registration) => ({
    capacityGb: decimalText(registration.storage_capacity_gb, 'storage_capacity_gb'),
    formats: registration.supported_formats,
  }),
  view: ({ status, registration, releaseAt }, _role, service) => {
    const details = registration?.details;
    const { usedBytes, objects } = service.extension.usage();
    return {
      registered: status !== 'unregistered',
      status,
      operator: registration?.operator ?? null,
      storage_capacity_gb: details ? Number(details.capacityGb) : 0,
      bond_ogt: registration ? formatAmountShort(BigInt(registration.bond)) : '0',
      supported_formats: details?.formats ?? [],
      usedBytes,
      objects,
      peerId: registration?.peerId ?? null,
      txHash: registration?.txHash ?? null,
      unregisterTxHash: registration?.unregisterTxHash ?? null,
      releaseAt: releaseAt ?? null,
    };
  },
  extension: {
    namespaces: [OBJECTS],
    events: { 'omp-storage:proof': "a challenge of this node's on a deal passed or failed" },
    config: {
      maxObjectBytes: Type.Integer({
        minimum: 1,
        default: DEFAULT_MAX_OBJECT_BYTES,
        description: 'largest object an upload may be, bytes (413 over it)',
      }),
      uploadGraceSeconds: Type.Integer({
        minimum: 1,
        default: DEFAULT_GRACE_SECONDS,
        description:
          'how long an object may stay without a pending or active deal (an upload no deal followed, or one whose deals ended) before it is dropped',
      }),
    },
    create: (ctx, service) =>
      new StorageObjects(service, {
        dataDir: ctx.node.dataDir,
        table: ctx.table(OBJECTS),
        maxObjectBytes: Number(ctx.config.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES),
        graceSeconds: Number(ctx.config.uploadGraceSeconds ?? DEFAULT_GRACE_SECONDS),
        log: ctx.log,
        p2p: ctx.use('p2p'),
        chain: ctx.use('chain-reader'),
        peerOf: (provider) => readRecord((key) => ctx.use('chain-reader').state.get(key), OMP, provider)?.peerId,
        keeper: (objects) =>
          new DealKeeper({
            chain: ctx.use('chain-reader'),
            submitter: ctx.use('tx-submitter'),
            keys: ctx.use('keys').operators,
            operator: () => service.activeOperator(),
            store: objects.store,
            replicate: (deal, self) => objects.replicate(deal, self),
            events: ctx.events,
            log: ctx.log,
          }),
      }),
    routes: objectRoutes,
  },
});
