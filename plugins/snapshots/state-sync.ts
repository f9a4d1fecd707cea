import type { Stream } from '@libp2p/interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkSignedHeader, type SignedBlockHeader } from '../../sdk/block.js';
import { verifyEd25519 } from '../../chain/signatures.js';
import type { Chain } from '../../chain/chain.js';
import type { Block } from '../../chain/schemas.js';
import { manifestProblem, SnapshotError, type SnapshotManifest } from '../../chain/snapshots/format.js';
import type { StateAssembly } from '../../chain/snapshots/assembly.js';
import type { Logger } from '../../kernel/log.js';
import type { P2pService } from '../../p2p/service.js';
import type { BlockBundle } from '../../p2p/wire.js';
import { MAX_RANGE } from '../../p2p/wire.js';
import { SNAPSHOTS_PROTOCOL, snapshotRequests } from './protocol.js';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

/** What restoring needs of the chain and the network. */
export type RestoringChain = Pick<
  Chain,
  'head' | 'genesisHeight' | 'beginRestore' | 'restoreSnapshot' | 'abandonRestore'
>;
export type SnapshotNetwork = Pick<P2pService, 'openStream' | 'peersOnChain' | 'fetchBlocks' | 'reportPeer'>;

export interface Trust {
  readonly height: number;
  readonly hash: string;
}

/** BLOCKHASH reaches this many blocks back: their hashes come with the snapshot's block. */
const ANCESTORS = 256;
const CHUNKS_IN_FLIGHT = 4;
const REQUEST_TIMEOUT_MS = 15_000;
const PROGRESS_EVERY_MS = 2_000;
const RETRY_MS = 1_000;
const PEER_POLL_MS = 50;

const verifyHeader = (signature: Uint8Array, message: Uint8Array, key: Uint8Array): boolean =>
  verifyEd25519(signature, message, key);

/**
 * State sync (as CometBFT's): a node with only its genesis finds a snapshot at or after the block the
 * operator trusts (`--trust-height`, `--trust-hash`), fetches the blocks from the lower of that block
 * and 256 below the snapshot up to the snapshot's block and checks that they chain to the trusted one,
 * takes the manifest whose buckets make that block's state root, then fetches the chunks from every
 * peer that offers the snapshot, each checked against the manifest as it arrives — a bad one is
 * fetched from another peer, its sender refused — and written by the chain as it is taken; then the
 * chain checks the whole against the state root and the block's certificate against the validator set
 * it names, and makes it its state in one last batch (a restore that fails is wiped). Then range sync
 * takes over from the block after.
 */
export class StateSync {
  private readonly refused = new Set<string>();

  constructor(
    private readonly chain: RestoringChain,
    private readonly network: SnapshotNetwork,
    private readonly trust: Trust,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
  ) {}

  private request(): AbortSignal {
    return timeoutSignal(REQUEST_TIMEOUT_MS, this.signal);
  }

  private async stream(peer: string): Promise<Stream> {
    return this.network.openStream(peer, SNAPSHOTS_PROTOCOL, this.request());
  }

  private refuse(peer: string, reason: string): void {
    this.refused.add(peer);
    this.network.reportPeer(peer, reason);
  }

  private peers(): string[] {
    return this.network.peersOnChain().filter((peer) => !this.refused.has(peer));
  }

  /** Runs until the chain holds a snapshot's state (or the node stops). */
  async run(): Promise<void> {
    this.log.info(
      { trustHeight: this.trust.height, trustHash: this.trust.hash },
      `state sync: looking for a snapshot at or after block ${this.trust.height}`,
    );
    let waiting = false;
    while (!this.signal.aborted) {
      // Until a peer has told its head (moments after start) there is no one to ask: look again soon.
      if (this.peers().length === 0) {
        await sleep(PEER_POLL_MS, undefined, { signal: this.signal }).catch(() => undefined);
        continue;
      }
      const offered = await this.offers();
      const heights = [...offered.keys()].filter((h) => h >= this.trust.height).sort((a, b) => b - a);
      if (heights.length === 0) {
        if (!waiting)
          this.log.info(`state sync: no peer offers a snapshot at or after block ${this.trust.height} yet; waiting`);
        waiting = true;
        await sleep(RETRY_MS, undefined, { signal: this.signal }).catch(() => undefined);
        continue;
      }
      for (const height of heights) {
        try {
          await this.restore(height, offered.get(height)!);
          return;
        } catch (error) {
          if (this.signal.aborted) return;
          this.log.warn({ height, err: error }, `state sync: snapshot ${height} could not be restored; trying another`);
        }
      }
      await sleep(RETRY_MS, undefined, { signal: this.signal }).catch(() => undefined);
    }
  }

  /** Which peers offer which snapshot heights. */
  private async offers(): Promise<Map<number, string[]>> {
    const byHeight = new Map<number, string[]>();
    await Promise.all(
      this.peers().map(async (peer) => {
        try {
          for (const offer of await snapshotRequests.offers(await this.stream(peer), this.request())) {
            const list = byHeight.get(offer.height) ?? [];
            list.push(peer);
            byHeight.set(offer.height, list);
          }
        } catch (error) {
          this.log.debug({ peer, err: error }, 'state sync: a peer did not list its snapshots');
        }
      }),
    );
    return byHeight;
  }

  private async restore(height: number, offering: readonly string[]): Promise<void> {
    const started = performance.now();
    // The blocks up to the snapshot's are fetched and checked while the chunks come: the manifest
    // names its block, which must then be the trusted chain's (else all of it is wiped).
    const trusted = this.trustedBlocks(height, offering);
    trusted.catch(() => undefined);
    const { manifest, peer } = await this.manifest(height, offering);
    this.log.info(
      { height, chunks: manifest.chunks.length, peers: offering.length },
      `state sync: restoring the state of block ${height} (${manifest.chunks.length} chunks)`,
    );
    const assembly = await this.chain.beginRestore(manifest);
    let chain: Awaited<typeof trusted>;
    try {
      [chain] = await Promise.all([
        trusted.then((got) => {
          const block = got.blocks.at(-1)!;
          if (block.hash === manifest.blockHash && block.stateRoot === manifest.stateRoot) return got;
          this.refuse(peer, `state sync: its manifest of snapshot ${height} is not of the trusted chain's block`);
          throw new SnapshotError(
            `the manifest of snapshot ${height} names block ${manifest.blockHash} with state root ${manifest.stateRoot}; the trusted chain's is ${block.hash} with ${block.stateRoot}`,
          );
        }),
        this.chunks(assembly, offering),
      ]);
    } catch (error) {
      await assembly.close();
      await assembly.written().catch(() => undefined);
      await this.chain.abandonRestore();
      throw error;
    }
    await assembly.close();
    const { blocks, commit } = chain;
    await this.chain.restoreSnapshot({
      block: blocks.at(-1)!,
      commit,
      assembly,
      ancestors: blocks.slice(0, -1).map((b) => ({ height: b.height, hash: b.hash })),
    });
    this.log.info(
      { height, keys: assembly.state.size, seconds: Number(((performance.now() - started) / 1000).toFixed(2)) },
      `state sync: done at block ${height}; syncing the blocks after it`,
    );
  }

  /**
   * The blocks from the lower of the trusted block and `ANCESTORS` below the snapshot's, up to the
   * snapshot's, each with a valid header and each the parent of the next, the trusted one with the
   * trusted hash; and the snapshot block's certificate.
   */
  private async trustedBlocks(
    height: number,
    offering: readonly string[],
  ): Promise<{ blocks: Block[]; commit: BlockBundle['commit'] & object }> {
    const from = Math.max(this.chain.genesisHeight + 1, Math.min(this.trust.height, height - ANCESTORS));
    const candidates = [...new Set([...offering, ...this.peers()])].filter((peer) => !this.refused.has(peer));
    for (const peer of candidates) {
      let bundles: BlockBundle[] = [];
      try {
        for (let next = from; next <= height; ) {
          const got = await this.network.fetchBlocks(peer, next, Math.min(MAX_RANGE, height - next + 1));
          if (got.length === 0) throw new Error(`it has no block ${next}`);
          bundles = bundles.concat(got);
          next += got.length;
        }
      } catch (error) {
        this.log.debug({ peer, err: error }, 'state sync: a peer did not serve the blocks up to the snapshot');
        continue;
      }
      const problem = this.chainProblem(bundles);
      if (problem) {
        this.refuse(peer, `state sync: its blocks up to snapshot ${height} ${problem}`);
        continue;
      }
      return { blocks: bundles.map((b) => b.block), commit: bundles.at(-1)!.commit! };
    }
    throw new SnapshotError(`no peer served blocks ${from} to ${height} that chain to the trusted block`);
  }

  private chainProblem(bundles: readonly BlockBundle[]): string | undefined {
    for (const [i, { block }] of bundles.entries()) {
      const header = checkSignedHeader(block as unknown as SignedBlockHeader, verifyHeader);
      if (header) return `hold block ${block.height} with a bad header (${header})`;
      if (i > 0 && block.parentHash !== bundles[i - 1]!.block.hash)
        return `do not chain: block ${block.height}'s parent is not block ${block.height - 1}`;
      if (block.height === this.trust.height && block.hash !== this.trust.hash)
        return `hold block ${block.height} as ${block.hash}, not the trusted ${this.trust.hash}`;
    }
    if (!bundles.at(-1)?.commit) return 'lack the certificate of the snapshot block';
    return undefined;
  }

  /** A manifest of snapshot `height` whose buckets make the state root it names (that block's is checked beside it). */
  private async manifest(
    height: number,
    offering: readonly string[],
  ): Promise<{ manifest: SnapshotManifest; peer: string }> {
    for (const peer of offering) {
      if (this.refused.has(peer)) continue;
      let manifest: SnapshotManifest | undefined;
      try {
        manifest = await snapshotRequests.manifest(await this.stream(peer), height, this.request());
      } catch (error) {
        this.log.debug({ peer, err: error }, 'state sync: a peer did not send the manifest');
        continue;
      }
      const problem = !manifest
        ? 'it has none'
        : typeof manifest.stateRoot !== 'string' || typeof manifest.blockHash !== 'string'
          ? 'it does not name its block and state root'
          : manifestProblem(manifest, height, manifest.stateRoot);
      if (!problem) return { manifest: manifest!, peer };
      this.refuse(peer, `state sync: its manifest of snapshot ${height}: ${problem}`);
    }
    throw new SnapshotError(`no peer sent a manifest of snapshot ${height} whose buckets make its state root`);
  }

  /** Every chunk, each checked as it comes; a bad one is asked of another peer, and its sender refused. */
  private async chunks(assembly: StateAssembly, offering: readonly string[]): Promise<void> {
    const { manifest } = assembly;
    const state = assembly.state;
    const todo = manifest.chunks.map((_, i) => i);
    const total = todo.length;
    let done = 0;
    let bytes = 0;
    let turn = 0;
    const started = performance.now();
    let lastReport = started;
    const usable = (): string[] => offering.filter((peer) => !this.refused.has(peer));
    const worker = async (): Promise<void> => {
      for (;;) {
        if (assembly.over) return;
        const index = todo.shift();
        if (index === undefined) return;
        const peers = usable();
        if (peers.length === 0) {
          todo.unshift(index);
          throw new SnapshotError(`every peer offering snapshot ${manifest.height} sent a bad chunk or none`);
        }
        const peer = peers[turn++ % peers.length]!;
        let chunk: Uint8Array | undefined;
        try {
          chunk = await snapshotRequests.chunk(await this.stream(peer), manifest.height, index, this.request());
        } catch (error) {
          if (this.signal.aborted) throw error;
          this.log.debug({ peer, index, err: error }, 'state sync: a chunk request failed; asking again');
          todo.push(index);
          // A peer that fails at once (gone, refusing streams) is not asked again in a tight loop.
          await sleep(RETRY_MS, undefined, { signal: this.signal }).catch(() => undefined);
          continue;
        }
        try {
          if (!chunk) throw new SnapshotError(`chunk ${index}: the peer has none`);
          await assembly.add(index, chunk);
        } catch (error) {
          if (!(error instanceof SnapshotError)) throw error;
          if (assembly.over) return;
          this.log.warn(
            { peer, index, reason: error.message },
            `state sync: chunk ${index} from ${peer} is bad (${error.message}); fetching it elsewhere`,
          );
          this.refuse(peer, `state sync: ${error.message}`);
          todo.push(index);
          continue;
        }
        done++;
        bytes += chunk.length;
        const now = performance.now();
        if (now - lastReport >= PROGRESS_EVERY_MS || done === total) {
          lastReport = now;
          this.log.info(
            { chunks: done, of: total, keys: state.size, megabytes: Number((bytes / 2 ** 20).toFixed(1)) },
            `state sync: ${done} of ${total} chunks (${Math.round((done / total) * 100)}%), ${state.size} keys`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CHUNKS_IN_FLIGHT, total) }, worker));
    this.log.debug({ ms: Math.round(performance.now() - started) }, 'state sync: every chunk checked');
  }
}
