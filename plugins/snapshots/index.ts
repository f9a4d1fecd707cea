import Type from 'typebox';
import { definePlugin } from '../../kernel/plugin.js';
import { SnapshotStore } from '../../chain/snapshots/store.js';
import { answerSnapshots, SNAPSHOTS_PROTOCOL } from './protocol.js';
import { StateSync, type Trust } from './state-sync.js';

const SnapshotsConfig = Type.Object(
  {
    interval: Type.Integer({
      minimum: 0,
      default: 1000,
      description: 'take a state snapshot every this many blocks, for peers that state-sync (0: take none)',
    }),
    keep: Type.Integer({ minimum: 1, default: 2, description: 'snapshots kept on disk, the newest' }),
    stateSync: Type.Boolean({
      default: false,
      description:
        "a node with an empty data dir restores a peer's snapshot at or after trustHeight, then follows the chain",
    }),
    trustHeight: Type.Optional(Type.Integer({ minimum: 1, description: 'the block the operator trusts (state sync)' })),
    trustHash: Type.Optional(
      Type.String({ pattern: '^0x[0-9a-f]{64}$', description: "that block's hash, from a node the operator trusts" }),
    ),
  },
  { additionalProperties: false, default: {} },
);

interface SnapshotsService {
  readonly store: SnapshotStore;
  /** This node restores a snapshot at start (state sync asked, and the data dir holds only the genesis). */
  readonly restoring: boolean;
  readonly trust: Trust;
  /** Lets range sync go once state sync is done (or not wanted). */
  readonly release: () => void;
}

/**
 * State snapshots and state sync, on every node: a snapshot of the whole state every `interval`
 * blocks (`<data dir>/snapshots`, the newest `keep`), offered to peers on `/svc/snapshots/1.0.0`; and,
 * with `stateSync`, a new node restores a peer's snapshot at or after the block it trusts instead of
 * replaying every block from the genesis (docs/keeping-a-network.md).
 */
export default definePlugin({
  name: 'snapshots',
  version: '1.0.0',
  description:
    'state snapshots every snapshots.interval blocks, served to peers; --state-sync restores one at or after a trusted block',
  config: SnapshotsConfig,
  requires: ['state-snapshots', 'p2p'],
  init: (ctx) => {
    const { interval, keep, stateSync, trustHeight, trustHash } = ctx.config;
    if (stateSync && (trustHeight === undefined || trustHash === undefined))
      throw new Error(
        '--state-sync needs --trust-height and --trust-hash: a block and its hash from a node you trust (svc_getBlockByNumber)',
      );
    const chain = ctx.use('state-snapshots');
    const p2p = ctx.use('p2p');
    const store = new SnapshotStore(ctx.node.dataDir, keep, ctx.log);
    // A new node restores a snapshot first: range sync waits for it from before the network starts.
    const restoring = stateSync && chain.head.height === chain.genesisHeight;
    if (stateSync && !restoring)
      ctx.log.info(
        { head: chain.head.height },
        `--state-sync: this data dir holds blocks up to ${chain.head.height} already; syncing the blocks after them`,
      );
    const release = restoring ? p2p.holdRangeSync() : () => undefined;
    if (interval > 0)
      ctx.events.on('chain:block', ({ height }) => {
        if (height % interval === 0) void store.take(chain.captureState());
      });
    const service: SnapshotsService = {
      store,
      release,
      restoring,
      trust: { height: trustHeight ?? 0, hash: trustHash ?? '' },
    };
    return service;
  },
  start: async (service, ctx) => {
    const p2p = ctx.use('p2p');
    await p2p.handleProtocol(SNAPSHOTS_PROTOCOL, (stream) => answerSnapshots(stream, service.store, ctx.signal), {
      maxInboundStreams: 8,
    });
    if (!service.restoring) return;
    const sync = new StateSync(ctx.use('state-snapshots'), p2p, service.trust, ctx.log, ctx.signal);
    void sync
      .run()
      .catch((error: unknown) => {
        if (!ctx.signal.aborted) ctx.log.error({ err: error }, 'state sync failed');
      })
      .finally(() => service.release());
  },
  stop: async (service) => {
    service.release();
    await service.store.idle();
  },
});
