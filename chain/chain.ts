import type { Address } from '../sdk/address.js';
import {
  checkSignedHeader,
  headerHash,
  signHeader,
  type BlockHeader,
  type CommitCertificate,
  type SignedBlockHeader,
} from '../sdk/block.js';
import { fromHex, toHex, type Hex } from '../sdk/bytes.js';
import type { KeyPair } from '../sdk/keys.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import { rawDigest, rawOf, rememberRaw } from './raw-transactions.js';
import type { ScopedEvents } from '../kernel/events.js';
import type { Logger } from '../kernel/log.js';
import type { WriteBatch } from '../kernel/storage/namespace.js';
import { HistoryPrunedError, type WorldState } from './state/world-state.js';
import type { BlockTag } from '../sdk/api.js';
import { allTransactions, type AccountTransactionPage, type BlockStore } from './block-store.js';
import { executeTransactions, InvalidTransactionError } from './executor.js';
import { blockEnvOf, lastCommitOf } from './block-env.js';
import { replayTransactions, type ReplayOptions, type BlockReplay } from './replay.js';
import { genesisHeader, genesisHeightOf, genesisState, type GenesisSpec } from './genesis.js';
import { invalidSignature, type Mempool } from './mempool.js';
import { domainError, isDomainError } from '../sdk/errors.js';
import type { TxDecoder } from './tx-decoder.js';
import { decodeStored, type DecodeResult } from './decode-verified.js';
import type { EnvelopeContext } from './ethereum-envelope.js';
import { receiptRoot, type Receipt } from './receipts.js';
import { decodeSystemTransaction, isSystemRaw, systemAsSigned, type SystemTransaction } from './system-transactions.js';
import type { Block } from './schemas.js';
import { verifyRemembered } from './signatures.js';
import type { TxKindRegistry } from './tx-kinds.js';
import { Pacer } from './pacer.js';
import { merkleRootPaced } from './merkle.js';
import { NO_FINALITY_RULES, type FinalityRules } from './finality.js';
import type { SubmitOptions } from './capabilities.js';
import type { JournalRecord, TxJournal } from './tx-journal.js';
import { knowsRulesVersion, unknownGenesisVersion } from './rules-version.js';
import { RULES_SCHEDULE_KEY, RulesSchedule } from './rules-schedule.js';
import { type ChainHaltError, haltBefore } from './chain-halt.js';
import { StateAssembly } from './snapshots/assembly.js';
import { ChunkCheckThread } from './snapshots/chunk-check-thread.js';
import type { SnapshotManifest } from './snapshots/format.js';
import type { StateCapture } from './snapshots/store.js';
import { BlockActivity } from './block-activity.js';
import { RecentTransactions } from './recent-transactions.js';
import { MovingAverage } from './moving-average.js';

/** What replaying the journal at start did with its records. */
export interface JournalReplay {
  /** Admitted to the mempool again. */
  readonly replayed: number;
  /** Mined before the node stopped, or their nonce taken by another transaction meanwhile (`superseded`). */
  readonly mined: number;
  readonly superseded: number;
  /** Older than the mempool keeps a transaction. */
  readonly expired: number;
  /** No longer admissible (funds spent meanwhile, a rule changed); each logged at debug with why. */
  readonly invalid: number;
}

/** Refusals of a replayed transaction that mean it was mined (or is a duplicate record). */

export class ChainMismatchError extends Error {
  override name = 'ChainMismatchError';
}

/** A block executed but not committed: its state changes are previewed (undone if it is dropped). */
interface Prepared {
  readonly block: Block;
  readonly txs: readonly SignedTransaction[];
  /** What the end steps did to contracts, after `txs` (their receipts follow theirs). */
  readonly system: readonly SystemTransaction[];
  readonly receipts: readonly Omit<Receipt, 'blockHash'>[];
  readonly changes: ReadonlyMap<string, Uint8Array | undefined>;
  readonly undo: () => void;
  readonly how: { source: 'produced' | 'imported'; started: number; quiet?: boolean };
}

/** A block that must not be imported; `reason` says which check failed. */
export class BlockRejectedError extends Error {
  override name = 'BlockRejectedError';
}

export interface ImportOptions {
  /** The block is one of many a sync is fetching: logged at debug (the sync's progress lines say it). */
  readonly catchingUp?: boolean;
  /** Transactions of the block already decoded and signature-checked here (by hash), besides the mempool's. */
  readonly checked?: ReadonlyMap<string, SignedTransaction>;
}

/** A block as peers send it: with the raw transactions it lists and the certificate that makes it final. */
export interface CertifiedBlock {
  readonly block: Block;
  readonly raws: Uint8Array[];
  readonly commit: CommitCertificate;
}

export interface ChainOptions {
  readonly batch: () => WriteBatch;
  readonly blocks: BlockStore;
  readonly state: WorldState;
  readonly mempool: Mempool;
  readonly decoder: TxDecoder;
  /** The network's ids, for decoding stored transactions of either envelope. */
  readonly envelope: EnvelopeContext;
  readonly kinds: TxKindRegistry;
  readonly genesis: GenesisSpec;
  readonly events: Pick<ScopedEvents, 'emit'>;
  readonly log: Logger;
  /** Most transactions in a produced block. */
  readonly maxBlockTransactions: number;
  /** Without the archive capability: blocks of receipts (and state history) kept. */
  readonly historyBlocks: number;
  /** Stop before this block (`--halt-height`): for planned maintenance. */
  readonly haltHeight?: number;
  /** Told once when the chain stops before a block (a halt height, rules this release lacks): the node exits. */
  readonly onHalt?: (halt: ChainHaltError) => void;
  /** Which rules versions this release implements (chain/rules-version.ts). */
  readonly knowsRulesVersion?: (version: number) => boolean;
}

/** Raised at start when a data dir that was an archive is opened without the archive capability. */
export class ArchiveFlagError extends Error {
  override name = 'ArchiveFlagError';
}

const verifyHeaderSignature = (signature: Uint8Array, message: Uint8Array, key: Uint8Array): boolean =>
  verifyRemembered(signature, message, key);

/** Raw transactions admitted lately, by digest (a few times a full mempool's worth): the same bytes again are refused without verifying them again. */
const MAX_RECENT_RAWS = 65_536;
/** Builds of fewer transactions say little about finishing's cost per transaction: its fixed part weighs most there. */
const FINISH_SAMPLE_MIN_TXS = 100;

async function txRoot(hashes: readonly string[], pacer: Pacer): Promise<Hex> {
  return toHex(
    await merkleRootPaced(
      hashes.map((h) => fromHex(h)),
      pacer,
    ),
  );
}

/**
 * The canonical chain: its head and world state in memory, its blocks on disk. Producing and importing
 * both execute the transactions, and commit the block with all its state in one atomic batch.
 */
export class Chain {
  private current: Block | undefined;
  private genesisBlockHash: string | undefined;
  private indexFrom = 0;
  private commits: Promise<unknown> = Promise.resolve();
  private archive = false;
  /** Digest of a raw transaction admitted lately -> its hash. */
  private readonly recentRaws = new Map<string, string>();
  /** Peers' transactions being admitted now (decoding on the worker, then the mempool's checks). */
  private readonly admitting = new Set<Promise<unknown>>();
  /** Told the hash of each transaction admitted: fills of proposals waiting for the ones they lack. */
  private readonly admissionWatchers = new Set<(hash: string) => void>();
  /** A proposal executed and held for consensus to decide (at most one: its state is previewed). */
  private outstanding: Prepared | undefined;
  /** The certificate the head was committed with: the next block carries it. */
  private headCommit: CommitCertificate | undefined;
  private finality: FinalityRules = NO_FINALITY_RULES;
  /** Where acknowledged transactions are made durable (none on a throw-away node). */
  private journal: TxJournal | undefined;
  /** What a client's submission waits for after it is journaled (dev mode's automine: its block). */
  private settle: ((tx: SignedTransaction) => Promise<void>) | undefined;
  /** The last blocks' transactions and receipts, for reads right after they are mined. */
  private readonly recent = new RecentTransactions();
  /** What finishing a built block (state root, receipts, roots) cost per transaction in recent builds, ms. */
  private readonly finishCost = new MovingAverage(0.3);
  /** Blocks committed since the last summary line. */
  readonly activity = new BlockActivity();
  /** The schedule decoded, with the state bytes it came from (they change only when an upgrade is adopted). */
  private schedule: { readonly raw: Uint8Array | undefined; readonly schedule: RulesSchedule } | undefined;
  /** The halt already reported (the node is exiting). */
  private halted: ChainHaltError | undefined;
  /** A state-synced node's first block (restored from a snapshot of it): nothing below it is held whole. */
  private base: number | undefined;

  constructor(private readonly options: ChainOptions) {}

  get genesis(): GenesisSpec {
    return this.options.genesis;
  }

  get envelope(): EnvelopeContext {
    return this.options.envelope;
  }

  /** Block 0's hash (known once the chain is open; computing it means hashing the genesis state). */
  get genesisHash(): string {
    if (!this.genesisBlockHash) throw new Error('chain is not open');
    return this.genesisBlockHash;
  }

  get head(): Block {
    if (!this.current) throw new Error('chain is not open');
    return this.current;
  }

  get state(): WorldState {
    return this.options.state;
  }

  /** The network's rules schedule, as the committed state holds it (it answers for every height up to its last entry and beyond). */
  get rulesSchedule(): RulesSchedule {
    const raw = this.options.state.get(RULES_SCHEDULE_KEY);
    if (this.schedule === undefined || this.schedule.raw !== raw)
      this.schedule = { raw, schedule: RulesSchedule.of(this.options.state) };
    return this.schedule.schedule;
  }

  /** The earliest block time (unix ms) at which a plugin's end-of-block step has work due, at the head; undefined for none. */
  nextDue(): number | undefined {
    return this.kinds.nextDue((key) => this.options.state.get(key));
  }

  /** The chain-rules version block `height` executes (or executed) under. */
  rulesVersionAt(height: number): number {
    return this.rulesSchedule.versionAt(height);
  }

  /**
   * Throws if block `height` must not be executed here (a halt height, a rules version this release
   * does not implement), telling `onHalt` once: the node then stops and exits with the halt's code.
   */
  private checkNotHalted(height: number): void {
    const halt = haltBefore(height, {
      haltHeight: this.options.haltHeight,
      version: this.rulesVersionAt(height),
      knows: this.options.knowsRulesVersion ?? knowsRulesVersion,
    });
    if (!halt) return;
    if (!this.halted) {
      this.halted = halt;
      this.options.log.error({ height, exitCode: halt.exitCode }, halt.message);
      this.options.onHalt?.(halt);
    }
    throw halt;
  }

  /** The height of the network's first block: 0, or where the export a network was made from was taken. */
  get genesisHeight(): number {
    return genesisHeightOf(this.options.genesis);
  }

  /** The lowest block held here: the genesis, or the snapshot a state-synced node began from. */
  get baseHeight(): number {
    return this.base ?? this.genesisHeight;
  }

  /** A block's hash up to the head, also below a state-synced node's base (the 256 before it: BLOCKHASH). */
  async blockHashAt(height: number): Promise<string | undefined> {
    if (height > this.head.height) return undefined;
    return (await this.options.blocks.byHeight(height))?.hash ?? (await this.options.blocks.ancestorHash(height));
  }

  /** The committed state as it stands after the head, for a snapshot (call when a block is committed). */
  captureState(): StateCapture {
    const { height, hash, stateRoot } = this.head;
    return { height, blockHash: hash, stateRoot, ...this.options.state.capture() };
  }

  /**
   * Begins making a chain that holds only its genesis begin at a snapshot's block instead (state
   * sync): returns the assembly the snapshot's chunks go into, whose checked entries are written as
   * they come (marked as a restore in progress first: a node that stops before `restoreSnapshot`
   * finishes wipes them when it opens again, and until then readers see the genesis state).
   */
  beginRestore(manifest: SnapshotManifest): Promise<StateAssembly> {
    return this.serialized(async () => {
      if (this.head.height !== this.genesisHeight)
        throw new Error(`the chain holds blocks up to ${this.head.height} already: state sync needs an empty data dir`);
      await this.options.blocks.markRestoring(manifest.height);
      const thread = new ChunkCheckThread();
      return new StateAssembly(manifest, {
        check: (job) => thread.check(job),
        close: () => thread.close(),
        persist: async (entries) => {
          const batch = this.options.batch();
          this.options.state.stageRestoredEntries(entries, manifest.height, batch);
          await batch.write();
        },
      });
    });
  }

  /**
   * Finishes a restore `beginRestore` began: the state (checked to hash to the block's state root),
   * the block as head with its certificate (checked by the validator set that state names), the
   * hashes of the blocks before it. The last batch makes it the chain's, and readers see it at once:
   * nothing half-restored is ever served. A restore that fails a check is wiped (`abandonRestore`).
   */
  async restoreSnapshot(restore: {
    readonly block: Block;
    readonly commit: CommitCertificate;
    readonly assembly: StateAssembly;
    readonly ancestors: readonly { readonly height: number; readonly hash: string }[];
  }): Promise<Block> {
    const { block, commit, assembly, ancestors } = restore;
    const { state, commitment } = assembly;
    const problem = (): string | undefined => {
      if (!assembly.complete) return `the snapshot of block ${block.height} lacks chunks`;
      if (assembly.manifest.height !== block.height)
        return `the snapshot is of block ${assembly.manifest.height}, not ${block.height}`;
      const root = assembly.root();
      if (root !== block.stateRoot)
        return `the restored state hashes to ${root}, not block ${block.height}'s ${block.stateRoot}`;
      const commitProblem = this.finality.commitProblem(commit, block, 'head', (key) => state.get(key));
      return commitProblem ? `block ${block.height}: its commit certificate: ${commitProblem}` : undefined;
    };
    const wrong = problem();
    if (wrong) {
      await assembly.written().catch(() => undefined);
      await this.abandonRestore();
      throw new BlockRejectedError(wrong);
    }
    await assembly.written();
    return this.serialized(async () => {
      if (this.head.height !== this.genesisHeight)
        throw new Error(`the chain holds blocks up to ${this.head.height} already: state sync needs an empty data dir`);
      this.discardOutstanding();
      const batch = this.options.batch();
      this.options.state.stageRestoreEnd(state, batch);
      this.options.blocks.stageBase(batch, block, commit, ancestors);
      await batch.write();
      this.options.state.restored(state, block.height, commitment);
      this.base = block.height;
      this.current = block;
      this.headCommit = commit;
      this.indexFrom = block.height + 1;
      this.options.mempool.clear();
      this.recentRaws.clear();
      this.recent.clear();
      this.options.log.info(
        { height: block.height, hash: block.hash, keys: state.size },
        `restored the state of block ${block.height} from a snapshot: ${state.size} keys`,
      );
      this.options.events.emit('chain:restored', { height: block.height });
      return block;
    });
  }

  /**
   * Undoes a restore that began and will not finish (a bad snapshot, or a node stopped midway): the
   * state it wrote goes and the genesis state is written again, as in a data dir that never began one.
   */
  abandonRestore(): Promise<void> {
    return this.serialized(async () => {
      if ((await this.options.blocks.restoring()) === undefined) return;
      const batch = this.options.batch();
      await this.options.state.stageWipe(batch);
      await this.options.state.stage(genesisState(this.options.genesis), 0, batch);
      this.options.blocks.clearRestoring(batch);
      await batch.write();
    });
  }

  /** The height a block tag names: "latest" and "finalized" the head (a committed block is final), "earliest" the genesis block. */
  heightOf(tag: BlockTag): number {
    return tag === 'latest' || tag === 'finalized' ? this.head.height : tag === 'earliest' ? this.genesisHeight : tag;
  }

  /**
   * A reader of the state as it was after block `height`, for the RPC methods that take a
   * `blockNumber`: the head's values from memory, older ones from history within the window (every
   * block on an archive). Throws `not_found` for a block past the head; the reader rejects with
   * `pruned` for one before the window.
   */
  stateAt(height: number): (key: string) => Promise<Uint8Array | undefined> {
    if (height > this.head.height)
      throw domainError('not_found', `block ${height} does not exist yet (head is ${this.head.height})`, {
        blockNumber: height,
      });
    if (height < this.genesisHeight)
      throw domainError(
        'not_found',
        `block ${height} is before this network's first block (${this.genesisHeight}): it was made from another's exported state`,
        { blockNumber: height },
      );
    return (key) =>
      this.options.state.valueAt(key, height, this.head.height).catch((error: unknown) => {
        if (!(error instanceof HistoryPrunedError)) throw error;
        const oldest = this.options.state.oldestAvailable(this.head.height);
        throw domainError(
          'pruned',
          `state at block ${height} is older than this node's history window (oldest: ${oldest}); ask an archive node`,
          { oldest },
        );
      });
  }

  get mempool(): Mempool {
    return this.options.mempool;
  }

  get kinds(): TxKindRegistry {
    return this.options.kinds;
  }

  /**
   * Loads the stored head and state, or writes block 0 and the genesis state into an empty data dir.
   * Refuses a data dir of another chain, and a state that does not match the head's state root.
   */
  async open(): Promise<{ created: boolean }> {
    const { rulesVersion } = this.options.genesis;
    const unsupported = unknownGenesisVersion('the genesis', rulesVersion);
    if (unsupported)
      throw new ChainMismatchError(`${unsupported}: run an svc-node release that implements version ${rulesVersion}`);
    const expected = genesisHeader(this.options.genesis);
    const expectedHash = headerHash(expected);
    this.genesisBlockHash = expectedHash;
    const stored = await this.options.blocks.byHeight(this.genesisHeight);
    if (!stored) {
      const block: Block = { ...expected, hash: expectedHash, signature: '0x', transactions: [] };
      const changes = genesisState(this.options.genesis);
      const { root } = await this.options.state.preview(changes);
      if (root !== block.stateRoot) throw new Error('genesis state root mismatch (kernel bug)');
      const batch = this.options.batch();
      await this.options.state.stage(changes, 0, batch);
      await this.options.blocks.stage(batch, { block, commit: undefined, txs: [], raws: [], receipts: [] });
      this.options.blocks.stageRulesVersion(batch, rulesVersion);
      await batch.write();
      this.options.state.publish(changes, 0);
      this.current = block;
      this.indexFrom = await this.options.blocks.accountIndexFrom();
      return { created: true };
    }
    const written = await this.options.blocks.rulesVersion();
    if (written !== rulesVersion)
      throw new ChainMismatchError(
        `the data dir holds a network that ${written === undefined ? 'recorded no chain rules version (written before versions were recorded)' : `started on chain rules version ${written}`}, not ${rulesVersion} as its genesis says: use another --data-dir, or the genesis it was made with`,
      );
    if (stored.hash !== expectedHash) {
      throw new ChainMismatchError(
        `the data dir holds chain ${stored.chainId} with genesis ${stored.hash}, not ${expected.chainId} with genesis ${expectedHash} (another network, genesis file or version of the chain rules): use another --data-dir or --network`,
      );
    }
    const height = await this.options.blocks.headHeight();
    const head = height === undefined ? undefined : await this.options.blocks.byHeight(height);
    if (!head)
      throw new ChainMismatchError(
        'the data dir has a genesis block but no readable head block: the database is damaged',
      );
    const restoring = await this.options.blocks.restoring();
    if (restoring !== undefined) {
      this.options.log.warn(
        { snapshot: restoring },
        `the restore of snapshot ${restoring} did not finish: its state is wiped; state sync begins again`,
      );
      await this.abandonRestore();
    }
    await this.options.state.load();
    const root = this.options.state.root();
    if (root !== head.stateRoot)
      throw new ChainMismatchError(
        `stored state has root ${root}, but head block ${head.height} says ${head.stateRoot}: the database is damaged`,
      );
    this.headCommit = head.height > this.genesisHeight ? await this.options.blocks.commit(head.height) : undefined;
    if (head.height > this.genesisHeight && !this.headCommit)
      throw new ChainMismatchError(
        `head block ${head.height} has no commit certificate stored: the database is damaged`,
      );
    this.current = head;
    this.indexFrom = await this.options.blocks.accountIndexFrom();
    this.base = await this.options.blocks.base();
    if (this.base !== undefined) this.options.state.setBase(this.base);
    // A node stopped before a block it must not execute says so again, and does not start.
    this.checkNotHalted(head.height + 1);
    return { created: false };
  }

  getBlock(height: number): Promise<Block | undefined> {
    return this.options.blocks.byHeight(height);
  }

  getBlockByHash(hash: string): Promise<Block | undefined> {
    return this.options.blocks.byHash(hash);
  }

  /** The certificate this node committed the block at `height` with (undefined for block 0 and unknown heights). */
  async getCommit(height: number): Promise<CommitCertificate | undefined> {
    if (height === this.head.height) return this.headCommit;
    return this.options.blocks.commit(height);
  }

  /** The rules that judge commit certificates (the staking rules set them). */
  setFinalityRules(rules: FinalityRules): void {
    this.finality = rules;
  }

  /**
   * A certificate of the head with more precommits than the one it was committed with (votes that
   * came after the decision): the next block carries it, so every validator that voted in time counts
   * as having signed. Ignored unless it is valid and larger.
   */
  async improveHeadCommit(certificate: CommitCertificate): Promise<boolean> {
    const current = this.headCommit;
    if (
      !current ||
      certificate.blockHash !== this.head.hash ||
      certificate.signatures.length <= current.signatures.length
    )
      return false;
    if (this.finality.commitProblem(certificate, this.head, 'head')) return false;
    await this.options.blocks.replaceCommit(certificate);
    // The head may have moved on while the certificate was written.
    if (this.head.hash === certificate.blockHash) this.headCommit = certificate;
    return true;
  }

  /** The first block whose transactions are indexed by account. */
  get accountIndexFrom(): number {
    return this.indexFrom;
  }

  /** An account's mined transactions, newest first, from `accountIndexFrom` on. */
  accountTransactions(
    address: string,
    limit: number,
    before?: { height: number; index: number },
  ): Promise<AccountTransactionPage> {
    return this.options.blocks.accountTransactions(address, limit, before);
  }

  /**
   * A mined transaction's bytes as they arrived, where it is (undefined: not mined here). What a
   * block being written holds is not shown before the block is the head (its receipt neither).
   */
  async getRawTransaction(hash: string): Promise<{ raw: Uint8Array; height: number; index: number } | undefined> {
    const stored = this.recent.get(hash) ?? (await this.options.blocks.transaction(hash));
    return stored && stored.height <= this.head.height
      ? { raw: stored.raw, height: stored.height, index: stored.index }
      : undefined;
  }

  async getTransaction(hash: string): Promise<{ tx: SignedTransaction; height?: number; index?: number } | undefined> {
    // The mempool first: a block committed while the store is read takes the transaction out of the
    // mempool after it is stored, so one of the two looks finds it.
    const pending = this.options.mempool.get(hash);
    const stored = await this.getRawTransaction(hash);
    if (stored) {
      const tx = isSystemRaw(stored.raw)
        ? systemAsSigned(decodeSystemTransaction(stored.raw), this.head.chainId)
        : decodeStored(stored.raw, this.options.envelope);
      return { tx, height: stored.height, index: stored.index };
    }
    return pending ? { tx: pending } : undefined;
  }

  /** Keep every receipt and every historical state value (the `archive` plugin turns this on). */
  enableArchive(): void {
    this.archive = true;
    this.options.state.keepAllHistory();
  }

  get isArchive(): boolean {
    return this.archive;
  }

  /**
   * Once a data dir has been an archive it stays one: turning the capability off would silently
   * lose what it promised to keep, so that takes an explicit `svc-node prune`.
   */
  async checkArchiveFlag(): Promise<void> {
    const wasArchive = await this.options.blocks.archiveFlag();
    if (wasArchive && !this.archive) {
      throw new ArchiveFlagError(
        '--receipt-archive: this data dir is an archive (it was run with --receipt-archive true); start it with --receipt-archive true, or drop the history outside the window first with `svc-node prune --data-dir <dir> [--history-blocks <n>]`',
      );
    }
    if (this.archive && !wasArchive) await this.options.blocks.setArchiveFlag(true);
  }

  /** A receipt; `pruned` when its block is older than the history window; undefined when unknown. */
  async receiptOrPruned(hash: string): Promise<Receipt | 'pruned' | undefined> {
    const receipt = await this.getReceipt(hash);
    if (receipt) return receipt;
    const stored = await this.getRawTransaction(hash);
    return stored && stored.height < this.state.oldestAvailable(this.head.height) ? 'pruned' : undefined;
  }

  /**
   * Raw transactions decoded and signature-checked on the worker, not admitted: a block's
   * transactions fetched from a peer, whose bytes must be proven to be the ones the block lists
   * before they are taken for it. Undefined for bytes that are not a valid transaction of this chain.
   */
  async decodeTransactions(raws: readonly Uint8Array[]): Promise<(SignedTransaction | undefined)[]> {
    // Ahead of transactions waiting only to be admitted: a proposal's check waits for these.
    const decoded = await Promise.all(raws.map((raw) => this.options.decoder.decode(raw, true)));
    return decoded.map((result, i) => {
      if (!('tx' in result)) return undefined;
      rememberRaw(result.tx, raws[i]!);
      return result.tx;
    });
  }

  /** The bytes a transaction travels as (what it arrived as, when it came raw). */
  rawTransaction(tx: SignedTransaction): Uint8Array {
    return rawOf(tx);
  }

  /** A stored block with the raw transactions it lists and its certificate, as peers that sync from this node get it. */
  async blockWithTransactions(height: number): Promise<CertifiedBlock | undefined> {
    if (height <= this.baseHeight) return undefined;
    const block = await this.options.blocks.byHeight(height);
    if (!block) return undefined;
    const commit = await this.getCommit(height);
    if (!commit) throw new Error(`block ${height} has no commit certificate stored: the database is damaged`);
    const raws = await Promise.all(
      block.transactions.map(async (hash) => (await this.options.blocks.transaction(hash))?.raw),
    );
    if (raws.some((raw) => raw === undefined))
      throw new Error(`block ${height} lists a transaction the store does not hold: the database is damaged`);
    return { block, raws: raws as Uint8Array[], commit };
  }

  /**
   * The state inside committed block `height` after its first `count` transactions (on the parent's
   * state, within the history window), for tracers: see chain/replay.ts.
   */
  async replayPrefix(height: number, count: number, deadline?: number, options?: ReplayOptions): Promise<BlockReplay> {
    const stored =
      height > this.genesisHeight && height <= this.head.height ? await this.blockWithTransactions(height) : undefined;
    if (!stored) throw domainError('not_found', `block ${height} is not committed here`, { blockNumber: height });
    const { block } = stored;
    const env = blockEnvOf(block, this.rulesVersionAt(height));
    const txs = stored.raws.map((raw) => decodeStored(raw, this.options.envelope));
    return replayTransactions(
      txs.slice(0, count),
      txs,
      env,
      this.stateAt(height - 1),
      this.options.kinds,
      this.options.log,
      deadline,
      options,
    );
  }

  /** A receipt of a block up to the head (one in a block being written is not there yet). */
  async getReceipt(hash: string): Promise<Receipt | undefined> {
    const recent = this.recent.get(hash);
    // At or before the oldest block of the history window its stored copy is pruned: the kept one must not outlive it.
    const receipt =
      recent && recent.height > this.options.state.oldestAvailable(this.head.height)
        ? recent.receipt
        : await this.options.blocks.receipt(hash);
    return receipt && receipt.blockNumber <= this.head.height ? receipt : undefined;
  }

  /**
   * Admits a transaction this node signed itself (verified inline; a refusal is thrown synchronously)
   * and resolves once it is in the journal: what an acknowledgement of it waits for.
   */
  submit(tx: SignedTransaction): Promise<void> {
    const raw = rawOf(tx);
    this.journal?.checkRoom(raw.length);
    this.replacing(tx, this.options.mempool.add(tx));
    return this.persisted(tx, raw);
  }

  /**
   * Makes a client's submission answer only once `settle` resolves for it (dev mode's automine: once
   * its block is committed, as Anvil answers); undefined answers at the journal again.
   */
  settleSubmissionsWith(settle: ((tx: SignedTransaction) => Promise<void>) | undefined): void {
    this.settle = settle;
  }

  /**
   * Admits a raw transaction from a client or a peer: decoded and signature-checked on a worker
   * thread, then checked against the mempool here, then (unless a peer sent it: its origin journals
   * it) written to the journal. Throws the domain error that says why not.
   */
  submitRaw(raw: Uint8Array, options: SubmitOptions = {}): Promise<SignedTransaction> {
    if (options.viaGossip !== true && options.fromPeer !== true) return this.admit(raw, options);
    const admitting = this.admit(raw, options);
    this.admitting.add(admitting);
    const done = (): boolean => this.admitting.delete(admitting);
    admitting.then(done, done);
    return admitting;
  }

  /**
   * Resolves once each of `hashes` is pending here or was refused after decoding, or once the peers'
   * transactions being admitted when it is called are in the mempool or refused (what is still lacking
   * then is not among them): a validator filling a proposal from its mempool waits for those it is
   * still decoding rather than fetch them (and decode them twice), but not for a whole flood being
   * decoded after them.
   */
  async admissionOf(hashes: readonly string[]): Promise<void> {
    const wanted = new Set(hashes.filter((hash) => this.options.mempool.get(hash) === undefined));
    if (wanted.size === 0 || this.admitting.size === 0) return;
    let watch!: (hash: string) => void;
    const arrived = new Promise<void>((resolve) => {
      watch = (hash) => {
        if (wanted.delete(hash) && wanted.size === 0) resolve();
      };
    });
    this.admissionWatchers.add(watch);
    try {
      await Promise.race([arrived, Promise.allSettled([...this.admitting])]);
    } finally {
      this.admissionWatchers.delete(watch);
    }
  }

  private async admit(raw: Uint8Array, options: SubmitOptions): Promise<SignedTransaction> {
    // The same bytes again (a peer's re-announcement, a client's retry) while they are pending: refused
    // as the mempool refuses them, without decoding and verifying them again.
    const digest = rawDigest(raw);
    const pending = this.recentRaws.get(digest);
    const known = pending === undefined ? undefined : this.options.mempool.get(pending);
    if (known) {
      options.accept?.(known);
      // The mempool's own refusal (already_known), with its words: the bytes are that pending transaction.
      this.options.mempool.addVerified(known);
      return known;
    }
    const fromPeer = options.viaGossip === true || options.fromPeer === true;
    if (!fromPeer) this.journal?.checkRoom(raw.length);
    const decoded = await this.options.decoder.decode(raw);
    if ('format' in decoded) throw domainError('invalid_transaction', decoded.format, { field: 'rawTransaction' });
    if ('wrongChain' in decoded)
      throw domainError('wrong_chain_id', decoded.wrongChain, { expected: this.options.envelope.evmChainId });
    if ('badSignature' in decoded) throw invalidSignature(decoded.reason);
    const { tx } = decoded;
    options.accept?.(tx);
    rememberRaw(tx, raw);
    try {
      this.replacing(tx, this.options.mempool.addVerified(tx));
    } finally {
      // Pending now, or refused (a fill that lacks it fetches it rather than wait for the rest).
      for (const watch of this.admissionWatchers) watch(tx.hash);
    }
    this.recentRaws.set(digest, tx.hash);
    if (this.recentRaws.size > MAX_RECENT_RAWS) this.recentRaws.delete(this.recentRaws.keys().next().value!);
    if (fromPeer) this.announce(tx, options.viaGossip ?? false);
    else if (this.settle) await Promise.all([this.persisted(tx, raw), this.settle(tx)]);
    else await this.persisted(tx, raw);
    return tx;
  }

  /** A replaced transaction leaves the journal at its next compaction (it compacts to what is pending). */
  private replacing(tx: SignedTransaction, replaced: SignedTransaction | undefined): void {
    if (replaced)
      this.options.log.debug(
        { tx: tx.hash, replaced: replaced.hash, from: tx.from, nonce: tx.nonce },
        'a pending transaction was replaced by one with higher fees',
      );
  }

  /**
   * Announces an admitted transaction and journals it; resolves once it is durable. The announcement
   * does not wait for the write: the transaction is pending either way (a failed write only means it
   * would not survive a restart), and a block producer takes it while the journal is written.
   */
  private persisted(tx: SignedTransaction, raw: Uint8Array): Promise<void> {
    this.announce(tx);
    return this.journal ? this.journal.append(tx.hash, raw) : Promise.resolve();
  }

  /**
   * Takes the journal's records back into the mempool at start (dropping what was mined, what
   * expired and what is no longer admissible), rewrites the journal with what is pending, and from
   * then on journals every transaction this node acknowledges.
   */
  async replayJournal(journal: TxJournal, records: readonly JournalRecord[]): Promise<JournalReplay> {
    const mempool = this.options.mempool;
    const oldest = Date.now() - mempool.ttlMs;
    const pending: SignedTransaction[] = [];
    const done: SignedTransaction[] = [];
    /** Older than the mempool keeps a transaction: expired, unless a block took it meanwhile. */
    const aged: SignedTransaction[] = [];
    let mined = 0;
    let expired = 0;
    let invalid = 0;
    const CHUNK = 256;
    for (let i = 0; i < records.length; i += CHUNK) {
      const chunk = records.slice(i, i + CHUNK);
      const decoded = await Promise.all(chunk.map((record) => this.options.decoder.decode(record.raw)));
      decoded.forEach((result, j) => {
        const record = chunk[j]!;
        if (!('tx' in result)) {
          invalid++;
          this.options.log.debug({ result }, 'journal: a record does not decode to a valid transaction; dropped');
          return;
        }
        if (record.time < oldest) {
          aged.push(result.tx);
          return;
        }
        rememberRaw(result.tx, record.raw);
        try {
          mempool.addVerified(result.tx);
          journal.adopt(result.tx.hash, record);
          pending.push(result.tx);
        } catch (error) {
          if (isDomainError(error, 'nonce_too_low', 'already_known')) done.push(result.tx);
          else {
            invalid++;
            this.options.log.debug(
              { tx: result.tx.hash, err: error },
              'journal: a transaction is no longer admissible; dropped',
            );
          }
        }
      });
    }
    const superseded: SignedTransaction[] = [];
    const minedOf = async (
      txs: readonly SignedTransaction[],
      otherwise: (tx: SignedTransaction) => void,
    ): Promise<void> => {
      for (let i = 0; i < txs.length; i += CHUNK) {
        const chunk = txs.slice(i, i + CHUNK);
        const stored = await Promise.all(
          chunk.map((tx) => (mempool.has(tx.hash) ? true : this.options.blocks.transaction(tx.hash))),
        );
        chunk.forEach((tx, j) => {
          if (stored[j]) mined++;
          else otherwise(tx);
        });
      }
    };
    await minedOf(done, (tx) => superseded.push(tx));
    await minedOf(aged, () => expired++);
    await journal.compact((hash) => mempool.has(hash), true);
    this.journal = journal;
    // A later record may have replaced an earlier one (a fee bump): only what is still pending counts.
    const stillPending = pending.filter((tx) => mempool.has(tx.hash));
    this.options.events.emit('chain:journalReplayed', { pending: stillPending, superseded });
    return { replayed: stillPending.length, mined, superseded: superseded.length, expired, invalid };
  }

  /** Stops journaling: what is queued is written, later acknowledgements are refused. */
  async closeJournal(): Promise<void> {
    const journal = this.journal;
    this.journal = undefined;
    await journal?.close();
  }

  /** Bytes of pending transactions in the journal (undefined without one). */
  get journalBytes(): number | undefined {
    return this.journal?.size;
  }

  private announce(tx: SignedTransaction, viaGossip = false): void {
    this.options.events.emit('chain:pendingTransaction', {
      hash: tx.hash,
      from: tx.from,
      kind: tx.kind,
      nonce: tx.nonce,
      transaction: tx,
      viaGossip,
    });
  }

  /**
   * Builds, signs and commits the next block from the mempool's ready transactions: what the only
   * validator of the set does, its own precommit the block's certificate.
   */
  produceBlock(key: KeyPair, timestamp: number, executionBudgetMs?: number): Promise<Block> {
    return this.serialized(async () => {
      this.discardOutstanding();
      const deadline = executionBudgetMs === undefined ? undefined : performance.now() + executionBudgetMs;
      const prepared = await this.build(key, timestamp, undefined, deadline);
      let certificate: CommitCertificate;
      try {
        certificate = this.finality.soleCommit(prepared.block, key);
      } catch (error) {
        prepared.undo();
        throw error;
      }
      return this.commit(prepared, certificate);
    });
  }

  /**
   * Builds and signs the next block as a proposal, executed but not committed: its state is held
   * until `commitProposal` (when consensus decides it) or dropped by the next proposal checked or
   * built, or by `discardProposal`. `deadline` (performance.now() ms): no transaction starts after it
   * but the first, counted by the caller, whose time may have started before this call's turn came.
   */
  proposeBlock(key: KeyPair, timestamp: number, maxBytes?: number, deadline?: number): Promise<Block> {
    return this.serialized(async () => {
      this.discardOutstanding();
      const prepared = await this.build(key, timestamp, maxBytes, deadline, true);
      this.outstanding = prepared;
      return prepared.block;
    });
  }

  /**
   * Checks a peer's proposal as an import does (header, transactions, re-execution to the header's
   * roots) without committing it; it is held for `commitProposal`. Throws BlockRejectedError.
   * `checked`: transactions of it already decoded and checked (`decodeTransactions`), by hash.
   */
  checkProposal(
    block: Block,
    rawTransactions: readonly Uint8Array[],
    checked?: ReadonlyMap<string, SignedTransaction>,
  ): Promise<Block> {
    return this.serialized(async () => {
      if (this.outstanding?.block.hash === block.hash) return this.outstanding.block;
      // Committed here meanwhile (a peer's commit imported while this check waited its turn): nothing to check.
      if (block.hash === this.head.hash) return this.head;
      this.discardOutstanding();
      const prepared = await this.verify(block, rawTransactions, checked ? { checked } : {});
      this.outstanding = prepared;
      return prepared.block;
    });
  }

  /** Commits the proposal held (built or checked here) with this hash: the block consensus decided, with its certificate. */
  commitProposal(hash: string, certificate: CommitCertificate): Promise<Block> {
    return this.serialized(async () => {
      if (hash === this.head.hash) return this.head;
      const prepared = this.outstanding;
      if (!prepared || prepared.block.hash !== hash)
        throw new Error(`no proposal ${hash} is held (${prepared ? `holding ${prepared.block.hash}` : 'none held'})`);
      const problem = this.finality.commitProblem(certificate, prepared.block, 'next');
      if (problem)
        throw new BlockRejectedError(`block ${prepared.block.height} (${hash}): its commit certificate: ${problem}`);
      this.outstanding = undefined;
      return this.commit(prepared, certificate);
    });
  }

  /** Drops the proposal held, if any: its state changes are undone. */
  discardProposal(): Promise<void> {
    return this.serialized(async () => this.discardOutstanding());
  }

  private discardOutstanding(): void {
    this.outstanding?.undo();
    this.outstanding = undefined;
  }

  /**
   * Executes what the mempool has ready into a signed block; no transaction but the first starts after
   * `deadline` (performance.now() ms) — with `readyBy`, after the moment finishing the block (its
   * roots and receipts, at what that cost a transaction in recent builds) would end past it.
   */
  private async build(
    key: KeyPair,
    timestamp: number,
    maxBytes?: number,
    deadline?: number,
    readyBy = false,
  ): Promise<Prepared> {
    const started = performance.now();
    const head = this.head;
    if (head.height > this.genesisHeight && !this.headCommit)
      throw new Error(`head block ${head.height} has no commit certificate to carry`);
    this.checkNotHalted(head.height + 1);
    const lastCommit = head.height > this.genesisHeight ? this.headCommit! : null;
    const env = {
      chainId: head.chainId,
      height: head.height + 1,
      timestamp,
      parentHash: head.hash,
      lastCommit: lastCommitOf(lastCommit),
      proposer: key.address,
      rulesVersion: this.rulesVersionAt(head.height + 1),
    };
    const candidates = this.options.mempool.ready(this.options.maxBlockTransactions, maxBytes);
    const pacer = new Pacer();
    const result = await executeTransactions(
      candidates,
      env,
      this.options.state,
      this.options.kinds,
      this.options.log,
      false,
      pacer,
      deadline === undefined ? {} : { deadline, finishMsPerTx: readyBy ? this.finishCost.value : 0 },
    );
    const executedAt = performance.now();
    for (const rejected of result.rejected)
      this.options.log.debug({ tx: rejected.hash, reason: rejected.message }, 'left a transaction out of the block');
    const hashes = result.included.map((tx) => tx.hash);
    const changes = result.overlay.changes;
    const applied = await this.options.state.preview(changes, pacer);
    const header: BlockHeader = {
      chainId: head.chainId,
      height: env.height,
      parentHash: head.hash as Hex,
      timestamp,
      proposer: key.address,
      proposerKey: toHex(key.publicKey),
      txRoot: await txRoot(hashes, pacer),
      stateRoot: applied.root,
      receiptRoot: toHex(await receiptRoot(result.receipts, pacer)),
      lastCommit,
    };
    const signed = signHeader(header, key);
    if (hashes.length >= FINISH_SAMPLE_MIN_TXS) this.finishCost.add((performance.now() - executedAt) / hashes.length);
    return {
      block: withSystemTransactions(Object.assign({}, signed, { transactions: hashes }), result.system),
      txs: result.included,
      system: result.system,
      receipts: result.receipts,
      changes,
      undo: applied.undo,
      how: { source: 'produced', started },
    };
  }

  /**
   * What is wrong with a block's header on its own (chain id, proposer for the block after the head,
   * hash, signature), or undefined: the check a peer's block announcement gets before it is believed
   * or passed on.
   */
  headerProblem(block: Block): string | undefined {
    if (block.chainId !== this.head.chainId) return `chain id ${block.chainId} is not ${this.head.chainId}`;
    // Who may propose is known for the block after the head only (the set may change at every epoch
    // end before a later one): a block further ahead is judged when its turn to import comes.
    const proposer = block.height === this.head.height + 1 ? this.proposerCheck(block) : undefined;
    if (proposer) return proposer;
    return checkSignedHeader(block as SignedBlockHeader, verifyHeaderSignature);
  }

  /**
   * Who may propose the block after the head: by default the genesis validator; the staking rules
   * replace it with membership of the validator set in force.
   */
  private proposerCheck: (block: Block) => string | undefined = (block) =>
    block.proposerKey === this.options.genesis.validatorKey ? undefined : 'proposer is not the chain validator';

  setProposerCheck(check: (block: Block) => string | undefined): void {
    this.proposerCheck = check;
  }

  /**
   * Verifies and commits a block received from elsewhere: its certificate first (precommits of more
   * than 2/3 of the set's power: a block that is not final is never executed), then parent link,
   * proposer and its signature, the parent's certificate it carries, transaction hashes and
   * signatures, then re-execution, which must give the header's roots.
   */
  importBlock(
    block: Block,
    rawTransactions: readonly Uint8Array[],
    commit: CommitCertificate,
    options: ImportOptions = {},
  ): Promise<Block> {
    return this.serialized(async () => {
      // Committed here meanwhile (consensus decided it while the import waited its turn): nothing to do.
      if (block.hash === this.head.hash) return this.head;
      const problem =
        block.height === this.head.height + 1 ? this.finality.commitProblem(commit, block, 'next') : undefined;
      if (problem)
        throw new BlockRejectedError(`block ${block.height} (${block.hash}): its commit certificate: ${problem}`);
      // The block a peer committed: a proposal held here for it is committed as it is, any other dropped.
      if (this.outstanding?.block.hash === block.hash) {
        const prepared = this.outstanding;
        this.outstanding = undefined;
        return this.commit(prepared, commit);
      }
      this.discardOutstanding();
      return this.commit(await this.verify(block, rawTransactions, options), commit);
    });
  }

  private async verify(
    block: Block,
    rawTransactions: readonly Uint8Array[],
    options: ImportOptions,
  ): Promise<Prepared> {
    const started = performance.now();
    const head = this.head;
    const reject = (reason: string): never => {
      throw new BlockRejectedError(`block ${block.height} (${block.hash}): ${reason}`);
    };
    const invalidHeader = this.headerProblem(block);
    if (invalidHeader) reject(invalidHeader);
    if (block.height !== head.height + 1 || block.parentHash !== head.hash)
      reject(`does not extend head ${head.height} (${head.hash})`);
    this.checkNotHalted(block.height);
    if (block.timestamp <= head.timestamp) reject('timestamp is not after its parent');
    const first = this.genesisHeight + 1;
    if (block.height === first && block.lastCommit !== null)
      reject(`block ${first} carries a parent certificate: the genesis block has none`);
    if (block.height > first) {
      if (block.lastCommit === null) reject(`carries no certificate of its parent ${head.height}`);
      const parentProblem = this.finality.commitProblem(block.lastCommit!, head, 'head');
      if (parentProblem) reject(`the certificate of its parent it carries: ${parentProblem}`);
    }
    if (rawTransactions.length !== block.transactions.length) reject('transaction count does not match the block');
    // Decoded and signature-checked like submitted transactions: on the worker, in batches. One this
    // node already admitted from the same bytes was checked then: its pending copy is used.
    const decoded = await Promise.all(
      rawTransactions.map((raw, i): DecodeResult | Promise<DecodeResult> => {
        const hash = block.transactions[i] ?? '';
        const known = this.options.mempool.get(hash) ?? options.checked?.get(hash);
        return known && Buffer.compare(rawOf(known), raw) === 0 ? { tx: known } : this.options.decoder.decode(raw);
      }),
    );
    const txs: SignedTransaction[] = [];
    for (const [i, result] of decoded.entries()) {
      if ('format' in result) return reject(`transaction ${i}: ${result.format}`);
      if ('wrongChain' in result) return reject(`transaction ${i}: ${result.wrongChain}`);
      if ('badSignature' in result) return reject(`transaction ${result.hash || i}: bad signature`);
      rememberRaw(result.tx, rawTransactions[i]!);
      if (result.tx.hash !== block.transactions[i]) reject(`transaction ${i} hash does not match the block's list`);
      txs.push(result.tx);
    }
    const pacer = new Pacer();
    if ((await txRoot(block.transactions, pacer)) !== block.txRoot) reject('transaction root mismatch');
    const env = {
      chainId: head.chainId,
      height: block.height,
      timestamp: block.timestamp,
      parentHash: head.hash,
      lastCommit: lastCommitOf(block.lastCommit),
      proposer: block.proposer as Address,
      rulesVersion: this.rulesVersionAt(block.height),
    };
    let result;
    try {
      result = await executeTransactions(
        txs,
        env,
        this.options.state,
        this.options.kinds,
        this.options.log,
        true,
        pacer,
      );
    } catch (error) {
      if (error instanceof InvalidTransactionError) return reject(`transaction ${error.hash}: ${error.message}`);
      throw error;
    }
    if (toHex(await receiptRoot(result.receipts, pacer)) !== block.receiptRoot) reject('receipt root mismatch');
    const changes = result.overlay.changes;
    const applied = await this.options.state.preview(changes, pacer);
    if (applied.root !== block.stateRoot) {
      applied.undo();
      reject(`state root mismatch: executing it gives ${applied.root}`);
    }
    // The system transactions are this node's own (the receipt root checked them), whatever the peer listed.
    const { systemTransactions: _theirs, ...listed } = block;
    return {
      block: withSystemTransactions(
        Object.assign({}, listed, { transactions: txs.map((tx) => tx.hash) }),
        result.system,
      ),
      txs,
      system: result.system,
      receipts: result.receipts,
      changes,
      undo: applied.undo,
      how: { source: 'imported', started, quiet: options.catchingUp === true },
    };
  }

  private async commit(
    { block: built, txs, system, receipts: pending, changes, undo, how }: Prepared,
    certificate: CommitCertificate,
  ): Promise<Block> {
    const block: Block = built;
    // Object.assign, not a spread followed by a field: on Node 20 (V8 11) that made a new hidden class per receipt.
    const receipts: Receipt[] = pending.map((r) => Object.assign({}, r, { blockHash: block.hash }));
    const raws = txs.map(rawOf);
    const systemRaws = system.map((tx) => tx.raw);
    const state = this.options.state;
    this.options.events.emit('chain:decided', {
      height: block.height,
      timestamp: block.timestamp,
      read: (key) => (changes.has(key) ? changes.get(key) : state.get(key)),
    });
    try {
      const batch = this.options.batch();
      const pacer = new Pacer();
      await this.options.state.stage(changes, block.height, batch, pacer);
      await this.options.state.stagePrune(block.height, batch);
      const expired = block.height - this.options.historyBlocks;
      if (!this.archive && expired >= 1) await this.options.blocks.stagePruneReceipts(batch, expired);
      await this.options.blocks.stage(batch, { block, commit: certificate, txs, raws, receipts, systemRaws }, pacer);
      await batch.write();
    } catch (error) {
      undo();
      throw error;
    }
    // From here on readers see the new block and its state together.
    this.options.state.publish(changes, block.height);
    this.current = block;
    this.headCommit = certificate;
    this.recent.add(block.height, allTransactions(block), [...raws, ...systemRaws], receipts);
    this.options.mempool.afterBlock(txs);
    this.journal
      ?.compact((hash) => this.options.mempool.has(hash))
      .catch((error: unknown) => this.options.log.error({ err: error }, 'compacting the transaction journal failed'));
    // A line a block at debug; at info, the summary every few seconds (chain/block-activity.ts) says it.
    const ms = Number((performance.now() - how.started).toFixed(1));
    this.options.log.debug(
      { height: block.height, transactions: txs.length, hash: block.hash, ms },
      `${how.source} block ${block.height}: ${txs.length} tx, ${block.hash.slice(0, 10)}…, ${ms} ms`,
    );
    this.activity.count(how.source, txs.length, ms);
    this.options.events.emit('chain:block', {
      height: block.height,
      hash: block.hash,
      timestamp: block.timestamp,
      transactions: txs.length,
      block,
      receipts,
      rawTransactions: raws,
      commit: certificate,
    });
    return block;
  }

  /**
   * Takes the chain back to block `height` (dev mode's revert; a network's chain never does this):
   * the blocks above it, their transactions, receipts and state go in one batch, the mempool and
   * the journal are emptied (their transactions were checked against a state that is gone), and
   * `chain:rewound` tells the views kept beside the chain. Refused below the history window: the
   * state there can't be restored.
   */
  rewind(height: number): Promise<Block> {
    return this.serialized(async () => {
      const from = this.head.height;
      if (!Number.isSafeInteger(height) || height < 0 || height > from)
        throw domainError('invalid_params', `cannot go back to block ${height}: the head is ${from}`, {
          field: 'height',
        });
      const oldest = this.options.state.oldestAvailable(from);
      if (height < oldest)
        throw domainError(
          'pruned',
          `cannot go back to block ${height}: its state is older than this node's history window (oldest: ${oldest})`,
          { oldest },
        );
      this.discardOutstanding();
      const target = await this.options.blocks.byHeight(height);
      if (!target) throw new Error(`block ${height} is not stored`);
      const commit = height > this.genesisHeight ? await this.options.blocks.commit(height) : undefined;
      const batch = this.options.batch();
      const restored = await this.options.state.stageRewind(height, batch);
      await this.options.blocks.stageRewind(batch, height, from, (raw) => decodeStored(raw, this.options.envelope));
      await batch.write();
      this.options.state.rewound(restored);
      this.current = target;
      this.headCommit = commit;
      this.options.mempool.clear();
      this.recentRaws.clear();
      this.recent.clear();
      await this.journal?.compact(() => false, true);
      this.options.log.info({ height, from, blocks: from - height }, `went back to block ${height} from ${from}`);
      this.options.events.emit('chain:rewound', { height, from });
      const root = this.options.state.root();
      if (root !== target.stateRoot)
        throw new Error(
          `after going back to block ${height} the state root is ${root}, not the block's ${target.stateRoot}: restart the node to check its database`,
        );
      return target;
    });
  }

  /** Commits one block at a time: production and import never interleave. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.commits.then(work, work);
    this.commits = run.catch(() => undefined);
    return run;
  }

  nextNonce(address: Address): number {
    return this.options.mempool.nextNonce(address);
  }

  isPending(hash: string): boolean {
    return this.options.mempool.has(hash);
  }

  /** Pending transactions at least `minAgeMs` old, oldest first. */
  pendingSince(minAgeMs: number): Iterable<SignedTransaction> {
    return this.options.mempool.pendingSince(minAgeMs);
  }

  pendingTransaction(hash: string): SignedTransaction | undefined {
    return this.options.mempool.get(hash);
  }

  /** The mempool's transactions, runnable (`pending`) and behind a nonce gap (`queued`). */
  pendingContent(): { pending: SignedTransaction[]; queued: SignedTransaction[] } {
    return this.options.mempool.content();
  }

  /** Takes a pending transaction out of the mempool; false when it is not pending. */
  dropPending(hash: string): boolean {
    return this.options.mempool.remove(hash);
  }
}

/** A block with its system transactions listed (the field is absent when there are none, as in blocks before them). */
function withSystemTransactions<B extends Omit<Block, 'systemTransactions'>>(
  block: B,
  system: readonly SystemTransaction[],
): B & Pick<Block, 'systemTransactions'> {
  return system.length === 0 ? block : Object.assign(block, { systemTransactions: system.map((tx) => tx.hash) });
}
