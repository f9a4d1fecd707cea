import { toHex } from '../../sdk/bytes.js';
import type { KeyPair } from '../../sdk/keys.js';
import type { ConsensusChain } from '../../chain/capabilities.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { Logger } from '../../kernel/log.js';
import type { P2pService } from '../../p2p/service.js';
import type { SyncStatus } from '../../p2p/sync-status.js';
import type { StakingService } from '../staking/service.js';
import { ConsensusDriver, type ConsensusView } from './consensus-driver.js';
import { BlockProducer } from './producer.js';
import { DevMiner } from './dev-miner.js';
import { pendingRaw } from './block-transactions.js';
import { answerTransactions, BLOCK_TRANSACTIONS_PROTOCOL } from './transactions-protocol.js';

/** How long a peer's request for a block's transactions may take to be answered here. */
const ANSWER_TIMEOUT_MS = 10_000;

export type ValidatorMode = 'producing' | 'consensus' | 'following' | 'refused';

export interface RoleOptions {
  readonly chain: ConsensusChain;
  readonly staking: StakingService;
  readonly p2p: P2pService;
  readonly sync: SyncStatus;
  readonly events: ScopedEvents;
  readonly key: KeyPair;
  readonly blockTime: number;
  readonly dataDir: string;
  readonly log: Logger;
  /** Dev mode: blocks when transactions wait and on demand, a movable clock (see DevMiner). */
  readonly dev?: boolean;
}

/**
 * What a validator node does, from the validator set in force: alone in it, it produces a block
 * every block time (the devnet as it starts); in a set of several, it runs consensus with the others;
 * outside the set, it follows the chain like a full node. Looked at again after every block (the set
 * changes at epoch ends).
 */
export class ValidatorRole {
  private readonly producer: BlockProducer | DevMiner;
  private driver: ConsensusDriver | undefined;
  private off: (() => void) | undefined;
  private readonly startedAt = Date.now();
  /** Until the node has caught up with the peers it joins, it signs nothing (it could not see who else signs with its key). */
  private caughtUp = false;
  private stopped = false;
  mode: ValidatorMode = 'following';

  constructor(private readonly options: RoleOptions) {
    this.producer = options.dev
      ? new DevMiner({
          chain: options.chain,
          events: options.events,
          key: options.key,
          blockTime: options.blockTime,
          log: options.log,
        })
      : new BlockProducer({ chain: options.chain, key: options.key, blockTime: options.blockTime, log: options.log });
  }

  /** Dev mode's controls (mining, the clock), when the node runs in it. */
  get devMiner(): DevMiner | undefined {
    return this.producer instanceof DevMiner ? this.producer : undefined;
  }

  get blockTime(): number {
    return this.options.blockTime;
  }

  get produced(): number {
    return this.producer.produced + (this.driver?.decided ?? 0);
  }

  /** No block for 5 block times while this node should be making them, or refusing to sign at all. */
  get stalled(): boolean {
    if (this.mode === 'refused') return true;
    if (this.devMiner) return false;
    return this.mode !== 'following' && Date.now() - this.options.chain.head.timestamp > 5 * this.options.blockTime;
  }

  health(): Record<string, unknown> {
    return {
      blockTime: this.blockTime,
      produced: this.produced,
      mode: this.mode,
      lastCommitAgeMs: Math.max(0, Date.now() - this.options.chain.head.timestamp),
      ...(this.driver ? { consensus: this.driver.describe() } : {}),
    };
  }

  /** `svc_consensusState`: the round this validator is in when it runs consensus; otherwise its mode and the next height. */
  consensusState(): { mode: ValidatorMode; height: number } & Partial<ConsensusView> {
    return {
      mode: this.mode,
      height: this.options.chain.head.height + 1,
      ...(this.driver ? this.driver.describe() : {}),
    };
  }

  async start(): Promise<void> {
    if (this.options.dev) {
      const { validators } = this.options.staking.currentSet();
      if (validators.length !== 1 || validators[0]!.consensusKey !== toHex(this.options.key.publicKey)) {
        throw new Error(
          `--dev: dev mode needs this node to be the whole validator set (the set has ${validators.length} validator(s)${validators.some((v) => v.consensusKey === toHex(this.options.key.publicKey)) ? '' : ', not this key'}); start it on a devnet data dir of its own`,
        );
      }
    }
    this.off = this.options.events.on('chain:block', () => this.reconsider());
    this.updates = this.catchUp().then(() => this.update());
    // Answered in every mode: a validator that has just left the set, or not yet joined it, still
    // holds what its peers may ask for.
    await this.options.p2p.handleProtocol(
      BLOCK_TRANSACTIONS_PROTOCOL,
      (stream) =>
        answerTransactions(stream, (hash) => this.transactionFor(hash), AbortSignal.timeout(ANSWER_TIMEOUT_MS)),
      { maxInboundStreams: 16 },
    );
  }

  /** A transaction a peer asks for to complete a block: of a block consensus holds, pending, or mined. */
  private async transactionFor(hash: string): Promise<Uint8Array | undefined> {
    const { chain } = this.options;
    const local = this.driver ? this.driver.localTransaction(hash) : pendingRaw(chain, hash);
    return local ?? (await chain.getRawTransaction(hash))?.raw;
  }

  /** One look at the mode at a time, in order. */
  private updates: Promise<void> = Promise.resolve();
  private reconsider(): void {
    this.updates = this.updates
      .then(() => this.update())
      .catch((error: unknown) => this.options.log.error({ err: error }, 'could not settle what this validator does'));
  }

  /**
   * A node that joins peers first takes their chain (as a follower), waiting at most 10 block times
   * (and 10 s) for one to answer: a validator key must not sign on a head it alone has.
   */
  private async catchUp(): Promise<void> {
    const { p2p, sync, chain, blockTime } = this.options;
    const deadline = Date.now() + Math.max(10 * blockTime, 10_000);
    const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.min(100, blockTime)));
    while (p2p.joinsPeers && !this.stopped && Date.now() < deadline) {
      const best = sync.bestPeerHead;
      if (best !== undefined && chain.head.height >= best) break;
      await tick();
    }
    // Then one block made since this node started, if the peers make any within 3 block times: a node
    // signing with this key would be making them, and what the peers announced first may predate it.
    const fresh = Date.now() + 3 * Math.max(blockTime, 300);
    while (p2p.joinsPeers && !this.stopped && Date.now() < fresh && chain.head.timestamp < this.startedAt) await tick();
    this.caughtUp = true;
  }

  /** A block signed with this node's key after it started, that it did not make: another node holds the key. */
  private async keyUsedElsewhere(): Promise<number | undefined> {
    const { chain, key } = this.options;
    const mine = toHex(key.publicKey);
    for (let height = chain.head.height; height >= Math.max(1, chain.head.height - 20); height--) {
      const block = await chain.getBlock(height);
      if (block && block.proposerKey === mine && block.timestamp >= this.startedAt && this.produced === 0)
        return height;
    }
    return undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    await this.updates.catch(() => undefined);
    this.driver?.stop();
    await this.producer.stop();
  }

  private wanted(): ValidatorMode {
    const { validators } = this.options.staking.currentSet();
    const mine = validators.some((v) => v.consensusKey === toHex(this.options.key.publicKey));
    if (!mine) return 'following';
    return validators.length === 1 ? 'producing' : 'consensus';
  }

  private async update(): Promise<void> {
    if (!this.caughtUp || this.mode === 'refused' || this.stopped) return;
    let wanted = this.wanted();
    if (wanted !== 'following' && this.mode === 'following' && this.produced === 0) {
      const elsewhere = await this.keyUsedElsewhere();
      if (elsewhere !== undefined) {
        this.mode = 'refused';
        return this.options.log.error(
          { height: elsewhere, consensusKey: toHex(this.options.key.publicKey) },
          `block ${elsewhere} was signed with this validator's key by another node since this one started: refusing to sign anything (two nodes with one key would double-sign); stop the other node or give this one its own key`,
        );
      }
      wanted = this.wanted();
    }
    if (wanted === this.mode) return;
    const was = this.mode;
    this.mode = wanted;
    if (was === 'producing') await this.producer.stop();
    if (was === 'consensus') {
      this.driver?.stop();
      this.driver = undefined;
    }
    if (wanted === 'producing') this.producer.start();
    if (wanted === 'consensus') {
      this.driver = new ConsensusDriver({
        chain: this.options.chain,
        staking: this.options.staking,
        p2p: this.options.p2p,
        events: this.options.events,
        key: this.options.key,
        dataDir: this.options.dataDir,
        blockTime: this.options.blockTime,
        log: this.options.log,
      });
      this.driver.start();
    }
    this.options.log.info(
      { from: was, to: wanted, height: this.options.chain.head.height },
      wanted === 'following'
        ? 'this validator key is not in the validator set: following the chain'
        : wanted === 'producing'
          ? this.devMiner
            ? 'dev mode: a block as soon as transactions wait, on demand, and every block time when idle'
            : 'alone in the validator set: producing a block every block time'
          : 'in a validator set of several: running consensus',
    );
  }
}
