import { TopicValidatorResult } from '@libp2p/gossipsub';
import type { Connection, PeerId, PrivateKey, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { BlockRejectedError } from '../chain/chain.js';
import type { BlockImport } from '../chain/capabilities.js';
import type { ScopedEvents } from '../kernel/events.js';
import type { Logger } from '../kernel/log.js';
import { keepBootstrapped } from './bootstrap.js';
import { createNetwork, type SvcLibp2p } from './network.js';
import { PeerBook } from './peers.js';
import { answerStatus, pushPending, receivePending, requestBlocks, requestStatus, serveBlocks } from './protocols.js';
import { Syncer } from './sync.js';
import { SyncTracker, type SyncStatus } from './sync-status.js';
import { ADDRESSES_PROTOCOL, answerAddresses, openStreamTo } from './locate.js';
import { answerPeerExchange, exchangePeers, PEER_EXCHANGE_PROTOCOL } from './peer-exchange.js';
import {
  BLOCKS_PROTOCOL,
  decodeBundle,
  decodeTransactionBatch,
  encodeGossipBlock,
  peekGossipBlock,
  encodeTransactionBatch,
  GOSSIP_TX_BATCH_BYTES,
  MAX_GOSSIP_BLOCK_BYTES,
  MAX_GOSSIP_TX_BATCH,
  MAX_PENDING_PUSH,
  PENDING_PROTOCOL,
  STATUS_PROTOCOL,
  topicName,
  topics,
  type BlockBundle,
  type Status,
} from './wire.js';
import { timeoutSignal } from '../kernel/timeout-signal.js';

/** What a plugin's gossip topic makes of a message: passed on, dropped, or dropped against the sender. */
export type GossipVerdict = 'accept' | 'ignore' | { readonly reject: string };

export interface P2pSettings {
  readonly host: string;
  readonly port: number;
  readonly bootstrapPeers: readonly string[];
  /** Most open connections. */
  readonly maxConnections: number;
}

/** A request/response exchange gives up after this long. */
const REQUEST_TIMEOUT_MS = 15_000;
/** Peers are asked for their head this often (besides what gossip tells). */
/** How often a node with room for more peers asks one for the peers it knows. */
const PEER_EXCHANGE_EVERY_MS = 2_000;
const STATUS_EVERY_MS = 2_000;
/** Domain errors that prove a gossiped transaction is bad (not merely late or a duplicate). */
const INVALID_TX = new Set(['invalid_transaction', 'invalid_signature', 'wrong_chain_id']);
/** Most local transactions held back while no peer listens on the transactions topic. */
const MAX_UNSENT = 10_000;
/**
 * Pending transactions still unmined after this long are pushed to every peer again (gossip never
 * repeats a message, so a producer that restarted, or a peer that joined the mesh late, would not
 * otherwise get them); a peer that connects gets all of them at once.
 */
const REANNOUNCE_EVERY_MS = 10_000;
/**
 * This node's transactions leave at the end of the turn they were admitted in, in up to
 * `QUICK_TX_BATCHES` messages per `TX_BATCH_WINDOW_MS`; past that, they wait for the window to
 * share a message (a flood goes out in large batches, a provider's few reports without delay).
 */
const TX_BATCH_WINDOW_MS = 5;
const QUICK_TX_BATCHES = 4;

export interface PeerView {
  readonly peerId: string;
  readonly addresses: string[];
  readonly direction: 'inbound' | 'outbound';
  readonly head: { height: number; hash: string } | null;
}

/**
 * The node on the peer-to-peer network: finds peers (bootstrap, with redials), checks they are on
 * this chain (status exchange), keeps up with the best head (range sync, then gossip), and relays
 * blocks and transactions by gossip.
 */
export class P2pService implements SyncStatus {
  readonly peers = new PeerBook();
  private readonly sync: SyncTracker;
  private network: SvcLibp2p | undefined;
  private readonly syncer: Syncer;
  private readonly topics: { blocks: string; transactions: string };
  private importQueue: Promise<unknown> = Promise.resolve();
  /** The highest block queued for import by gossip (it may be above the head while it imports). */
  private queuedTip = 0;
  private readonly stopController = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly offs: (() => void)[] = [];
  /** Transactions published while a peer listened but none could be sent them: published again once one listens. */
  private readonly unsent = new Set<string>();
  /**
   * Whether transactions were admitted here while no peer listened: once one does, every pending one
   * goes out (the mempool is the record of them; a lone validator keeps none per transaction).
   */
  private admittedAlone = false;
  /** Transactions admitted from this node's clients, waiting for their batch to go out. */
  private outgoing: string[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the last batches of this node's transactions left (performance.now()), up to QUICK_TX_BATCHES, oldest first. */
  private readonly flushes: number[] = [];
  /** Peers that were sent this node's pending transactions since they connected. */
  private readonly announcedTo = new Set<string>();
  /** Holds on range sync (a state sync runs first): it starts once none is left. */
  private syncHolds = 0;

  constructor(
    private readonly chain: BlockImport,
    private readonly privateKey: () => PrivateKey,
    private readonly settings: P2pSettings,
    private readonly events: ScopedEvents,
    private readonly log: Logger,
    /** This node produces blocks (a plugin provides `block-producer`): it publishes them, and counts as synced. */
    private readonly producer = false,
  ) {
    this.sync = new SyncTracker(
      () => this.chain.head.height,
      producer,
      (status) => this.events.emit('p2p:syncStatus', status),
    );
    this.topics = topics(chain.head.chainId, chain.genesisHash);
    this.syncer = new Syncer({
      head: () => this.chain.head.height,
      peers: this.peers,
      fetch: (peer, from, count) => this.requestBlocks(peer, from, count),
      importBlock: (bundle) => this.importInOrder(bundle, 'sync'),
      held: () => this.syncHolds > 0,
      misbehaved: (peer, reason) => this.refuse(peer, reason),
      failed: (peer, reason) => {
        this.log.debug({ peer, reason }, 'peer did not answer a range request');
        this.peers.forget(peer);
        this.reportBestHead();
      },
      log,
    });
  }

  get peerId(): string {
    return this.net.peerId.toString();
  }

  /** The addresses other nodes can dial, each ending in this node's peer id. */
  get listenAddresses(): string[] {
    return this.network ? this.network.getMultiaddrs().map((addr) => addr.toString()) : [];
  }

  get synced(): boolean {
    return this.sync.synced;
  }

  get bestPeerHead(): number | undefined {
    return this.sync.bestPeerHead;
  }

  get highestKnown(): number {
    return this.sync.highestKnown;
  }

  /** The chain's head height, as the sync sees it. */
  get headHeight(): number {
    return this.chain.head.height;
  }

  /** `svc_syncing`: false when synced, else where the sync started, where it is, where it goes. */
  syncing(): false | { startingBlock: number; currentBlock: number; highestBlock: number } {
    if (this.synced) return false;
    const currentBlock = this.chain.head.height;
    return { startingBlock: this.syncer.startingBlock ?? currentBlock, currentBlock, highestBlock: this.highestKnown };
  }

  peerList(): PeerView[] {
    if (!this.network) return [];
    const byPeer = new Map<string, PeerView>();
    for (const connection of this.network.getConnections()) {
      const id = connection.remotePeer.toString();
      const view = byPeer.get(id);
      if (view) view.addresses.push(connection.remoteAddr.toString());
      else
        byPeer.set(id, {
          peerId: id,
          addresses: [connection.remoteAddr.toString()],
          direction: connection.direction,
          head: this.peers.head(id) ?? null,
        });
    }
    return [...byPeer.values()];
  }

  async start(): Promise<void> {
    const network = await createNetwork({
      privateKey: this.privateKey(),
      host: this.settings.host,
      port: this.settings.port,
      bootstrapPeers: this.settings.bootstrapPeers,
      maxConnections: this.settings.maxConnections,
      refuses: (peer) => this.peers.refuses(peer.toString()),
    });
    this.network = network;
    await network.handle(STATUS_PROTOCOL, (stream, connection) => this.answerStatus(stream, connection), {
      maxInboundStreams: 8,
    });
    await network.handle(BLOCKS_PROTOCOL, (stream, connection) => this.answerBlocks(stream, connection), {
      maxInboundStreams: 8,
    });
    await network.handle(PENDING_PROTOCOL, (stream, connection) => this.receivePending(stream, connection), {
      maxInboundStreams: 2,
    });
    await network.handle(
      PEER_EXCHANGE_PROTOCOL,
      (stream, connection) =>
        answerPeerExchange(network, stream, connection.remotePeer.toString(), this.requestSignal()).catch(
          (error: unknown) => stream.abort(error as Error),
        ),
      { maxInboundStreams: 4 },
    );
    await network.handle(
      ADDRESSES_PROTOCOL,
      (stream) =>
        answerAddresses(network, stream, this.requestSignal()).catch((error: unknown) => stream.abort(error as Error)),
      { maxInboundStreams: 8 },
    );
    const pubsub = network.services.pubsub;
    pubsub.topicValidators.set(this.topics.blocks, (peer, message) =>
      this.onGossipBlock(peer.toString(), message.data),
    );
    pubsub.topicValidators.set(this.topics.transactions, (_peer, message) => this.onGossipTransactions(message.data));
    pubsub.addEventListener('message', () => this.events.emit('p2p:gossip', { direction: 'in' }));
    pubsub.addEventListener('subscription-change', (event) => {
      if (event.detail.subscriptions.some((sub) => sub.subscribe && sub.topic === this.topics.transactions))
        this.publishUnsent();
    });
    network.addEventListener('peer:connect', (event) => {
      // The gater turns refused peers away; this also covers a connection that raced the refusal.
      if (this.peers.refuses(event.detail.toString())) void network.hangUp(event.detail).catch(() => undefined);
      else void this.exchangeStatus(event.detail);
    });
    network.addEventListener('peer:disconnect', (event) => {
      this.peers.forget(event.detail.toString());
      this.announcedTo.delete(event.detail.toString());
      this.reportPeers();
    });
    try {
      await network.start();
    } catch (error) {
      // libp2p reports only that the listen address failed, not why.
      const why =
        (error as Error).name === 'UnsupportedListenAddressesError'
          ? 'the port is in use, or the address is not on this machine'
          : (error as Error).message;
      throw new Error(`--p2p-port ${this.settings.port}: cannot listen on ${this.settings.host} (${why})`);
    }
    pubsub.subscribe(this.topics.blocks);
    pubsub.subscribe(this.topics.transactions);
    for (const address of this.listenAddresses) this.log.info(`p2p listening on ${address}`);

    this.offs.push(
      this.events.on('chain:pendingTransaction', (event) => {
        if (!event.viaGossip) this.queueTransaction(event.hash);
      }),
      this.events.on('chain:block', (event) => {
        this.sync.headMoved();
        if (this.producer)
          this.publishBlock({
            block: { ...event.block, transactions: [...event.block.transactions] },
            raws: event.rawTransactions,
            commit: event.commit,
          });
      }),
    );
    this.timers.push(setInterval(() => this.refreshStatus(), STATUS_EVERY_MS).unref());
    this.timers.push(setInterval(() => void this.findPeers(), PEER_EXCHANGE_EVERY_MS).unref());
    this.timers.push(setInterval(() => this.reannounce(), REANNOUNCE_EVERY_MS).unref());
    if (this.settings.bootstrapPeers.length > 0)
      void keepBootstrapped(
        network,
        this.settings.bootstrapPeers,
        (peer) => this.peers.refuses(peer),
        this.stopController.signal,
        this.log,
      );
    else if (!this.producer)
      this.log.warn('no --bootstrap-peers: this node syncs (and counts as synced) only once a peer connects to it');
    this.reportPeers();
  }

  /**
   * A request protocol of a plugin's own (`/svc/<plugin>/...`), answered by `handler` for each
   * inbound stream: call once the network has started (a plugin that requires `p2p` starts after it).
   */
  async handleProtocol(
    protocol: string,
    handler: (stream: Stream, peer: string) => Promise<void>,
    options: { maxInboundStreams?: number } = {},
  ): Promise<void> {
    await this.net.handle(
      protocol,
      (stream, connection) =>
        handler(stream, connection.remotePeer.toString()).catch((error: unknown) => {
          this.log.debug({ protocol, err: error }, 'protocol stream failed');
          stream.abort(error as Error);
        }),
      { maxInboundStreams: options.maxInboundStreams ?? 4 },
    );
  }

  /**
   * A gossip topic of a plugin's own (`name`, e.g. `consensus/2`, scoped to this chain and genesis):
   * `judge` looks at each message from a peer before it is passed on — `accept` delivers it to the
   * plugin and relays it, `ignore` drops it, `reject` drops it and counts against the sender (the
   * `reason` is logged). Call once the network has started. Returns the topic's publisher (false when no
   * peer listens yet).
   */
  gossipTopic(
    name: string,
    judge: (data: Uint8Array, peer: string) => GossipVerdict | Promise<GossipVerdict>,
  ): { publish(data: Uint8Array): boolean } {
    const topic = topicName(this.chain.head.chainId, this.chain.genesisHash, name);
    const pubsub = this.net.services.pubsub;
    pubsub.topicValidators.set(topic, async (peer, message) => {
      try {
        const verdict = await judge(message.data, peer.toString());
        if (verdict === 'accept') return TopicValidatorResult.Accept;
        if (verdict === 'ignore') return TopicValidatorResult.Ignore;
        this.log.debug({ peer: peer.toString(), topic, reason: verdict.reject }, 'refused a gossip message');
        return TopicValidatorResult.Reject;
      } catch (error) {
        this.log.debug({ peer: peer.toString(), topic, err: error }, 'a gossip message could not be judged');
        return TopicValidatorResult.Ignore;
      }
    });
    pubsub.subscribe(topic);
    return { publish: (data) => this.publish(topic, data) };
  }

  /**
   * Whether this node takes in committed blocks from the blocks topic. A validator running consensus
   * learns of each decided block on the consensus topic (its header and certificate; it holds the
   * transactions), so it leaves the topic: otherwise every validator's copy of every block came to
   * every other validator, to be dropped unread. It still publishes its blocks there for the nodes
   * that listen, and the range sync still brings it any block it missed.
   */
  takeBlockGossip(take: boolean): void {
    if (!this.network || this.stopController.signal.aborted) return;
    const pubsub = this.network.services.pubsub;
    if (take === pubsub.getTopics().includes(this.topics.blocks)) return;
    if (take) pubsub.subscribe(this.topics.blocks);
    else pubsub.unsubscribe(this.topics.blocks);
    this.log.debug({ take }, take ? 'taking blocks from gossip again' : 'leaving block gossip to consensus');
  }

  /**
   * Holds range sync back until the returned release is called: a node restoring a state snapshot
   * must not fetch blocks from its genesis meanwhile. Call before the network starts.
   */
  holdRangeSync(): () => void {
    this.syncHolds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.syncHolds--;
      if (this.syncHolds === 0) this.syncer.poke();
    };
  }

  /** Up to `count` blocks from `from` with their transactions and certificates, as a peer serves them. */
  fetchBlocks(peer: string, from: number, count: number): Promise<BlockBundle[]> {
    return this.requestBlocks(peer, from, count);
  }

  /** A peer that sent what no honest node sends (a bad snapshot chunk): refused for a while, with the reason logged. */
  reportPeer(peer: string, reason: string): void {
    this.refuse(peer, reason);
  }

  /** Peers on this chain that announced a head, best first. */
  peersOnChain(): string[] {
    return this.peers.peersWith(0);
  }

  /** Whether this node was told of peers to join (`--bootstrap-peers`): its head may be behind theirs at start. */
  get joinsPeers(): boolean {
    return this.settings.bootstrapPeers.length > 0;
  }

  /**
   * Peers this node refuses from now on, until the next call replaces the list (an empty list lifts
   * it): it hangs up on them, neither dials nor accepts them, and ignores what they gossip. An
   * operator's tool against a peer that floods or lags, and how a test cuts the network between nodes.
   */
  denyPeers(peers: readonly string[]): void {
    for (const peer of peers) peerIdFromString(peer);
    const added = this.peers.deny(peers);
    if (added.length > 0 || peers.length === 0)
      this.log.info(
        { denied: peers },
        peers.length > 0 ? `denying ${peers.length} peer(s)` : 'no peer denied any more',
      );
    for (const peer of added) void this.network?.hangUp(peerIdFromString(peer)).catch(() => undefined);
    this.reportPeers();
  }

  get deniedPeers(): string[] {
    return this.peers.deniedPeers;
  }

  /** A stream to a peer on a plugin's protocol; a peer this node is not connected to is found through its peers. */
  openStream(peer: string, protocol: string, signal: AbortSignal): Promise<Stream> {
    return openStreamTo(this.net, peer, protocol, AbortSignal.any([signal, this.stopController.signal]));
  }

  async stop(): Promise<void> {
    // What waits for its batch goes out now: the peers have it, and the node may not come back.
    this.flushTransactions();
    this.stopController.abort();
    for (const off of this.offs.splice(0)) off();
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    this.sync.close();
    await this.network?.stop();
    await this.syncer.idle();
    await this.importQueue;
  }

  /** Health detail: whether synced, peers and the best head they announce. */
  health(): Record<string, unknown> {
    return {
      synced: this.synced,
      peers: this.peerList().length,
      bestPeerHead: this.peers.bestHeight() ?? null,
      syncing: this.syncer.active,
    };
  }

  private get net(): SvcLibp2p {
    if (!this.network) throw new Error('p2p is not started');
    return this.network;
  }

  private status(): Status {
    const head = this.chain.head;
    return {
      chainId: head.chainId,
      rulesVersion: this.chain.genesis.rulesVersion,
      genesis: this.chain.genesisHash,
      height: head.height,
      hash: head.hash,
    };
  }

  /** A peer of another chain-rules version, network or genesis: refused, with a reason in the log. */
  private foreign(status: Status): string | undefined {
    // The version a network starts on is part of what it is; later versions come by its schedule, the same for all.
    if (status.rulesVersion !== this.chain.genesis.rulesVersion)
      return `its network starts on chain rules version ${status.rulesVersion}; this node's starts on version ${this.chain.genesis.rulesVersion}`;
    if (status.chainId !== this.chain.head.chainId)
      return `it is on chain ${status.chainId}, this node on ${this.chain.head.chainId}`;
    if (status.genesis !== this.chain.genesisHash)
      return `its genesis is ${status.genesis}, this node's is ${this.chain.genesisHash}`;
    return undefined;
  }

  private learn(peer: string, status: Status): void {
    if (this.peers.refuses(peer)) {
      void this.network?.hangUp(peerIdFromString(peer)).catch(() => undefined);
      return;
    }
    const foreign = this.foreign(status);
    if (foreign) {
      this.refuse(peer, foreign);
      return;
    }
    this.peers.setHead(peer, { height: status.height, hash: status.hash });
    this.reportPeers();
    this.syncer.poke();
    // A peer just (re)connected and proved it is on this chain: it gets what this node holds pending.
    if (!this.announcedTo.has(peer)) {
      this.announcedTo.add(peer);
      void this.pushPendingTo(peer, this.pendingRaws(0));
    }
  }

  /** Drops a peer and refuses it for a while (misbehaviour or another network). */
  private refuse(peer: string, reason: string): void {
    if (!this.peers.isBanned(peer)) this.log.warn({ peer, reason }, `refusing peer ${peer}: ${reason}`);
    this.peers.ban(peer, reason);
    this.reportPeers();
    void this.network?.hangUp(peerIdFromString(peer)).catch(() => undefined);
  }

  private reportPeers(): void {
    this.reportBestHead();
    this.events.emit('p2p:peers', { peers: this.network ? this.peerList().length : 0 });
  }

  private reportBestHead(): void {
    this.sync.reportBestPeerHead(this.peers.bestHeight());
  }

  // --- status protocol -------------------------------------------------------------------------

  private async exchangeStatus(peer: PeerId): Promise<void> {
    if (this.stopController.signal.aborted) return;
    const id = peer.toString();
    try {
      this.learn(id, await requestStatus(this.net, peer, this.status(), this.requestSignal()));
    } catch (error) {
      if (this.stopController.signal.aborted) return;
      this.log.debug({ peer: id, err: error }, 'status exchange failed');
    }
  }

  private async answerStatus(stream: Stream, connection: Connection): Promise<void> {
    const peer = connection.remotePeer.toString();
    try {
      this.learn(peer, await answerStatus(stream, () => this.status(), this.requestSignal()));
    } catch (error) {
      this.log.debug({ peer, err: error }, 'bad status request');
      stream.abort(error as Error);
    }
  }

  private refreshStatus(): void {
    if (!this.network) return;
    for (const peer of this.network.getPeers()) void this.exchangeStatus(peer);
  }

  /**
   * While this node has room for more peers (half its connection cap, the rest left for peers that
   * dial in), it asks one connected peer, in turn, for the peers it knows, and dials those it lacks.
   */
  private exchangeTurn = 0;
  private async findPeers(): Promise<void> {
    const network = this.network;
    if (!network || this.stopController.signal.aborted) return;
    const room = Math.max(1, Math.floor(this.settings.maxConnections / 2)) - network.getConnections().length;
    const peers = network.getPeers();
    if (room <= 0 || peers.length === 0) return;
    const via = peers[this.exchangeTurn++ % peers.length]!;
    try {
      const fresh = await exchangePeers(network, via, this.requestSignal());
      for (const peer of fresh.slice(0, room)) {
        if (this.peers.refuses(peer.toString())) continue;
        await network.dial(peer, { signal: this.requestSignal() }).then(
          () => this.log.debug({ peer: peer.toString(), via: via.toString() }, 'connected to a peer of a peer'),
          (error: unknown) => this.log.debug({ peer: peer.toString(), err: error }, 'could not dial a peer of a peer'),
        );
      }
    } catch (error) {
      this.log.debug({ peer: via.toString(), err: error }, 'peer exchange failed');
    }
  }

  // --- blocks protocol -------------------------------------------------------------------------

  private requestBlocks(peer: string, from: number, count: number): Promise<BlockBundle[]> {
    return requestBlocks(this.net, peerIdFromString(peer), from, count, this.requestSignal());
  }

  private async answerBlocks(stream: Stream, connection: Connection): Promise<void> {
    try {
      await serveBlocks(
        stream,
        (height) => this.chain.blockWithTransactions(height),
        this.chain.head.height,
        this.requestSignal(),
      );
    } catch (error) {
      this.log.debug({ peer: connection.remotePeer.toString(), err: error }, 'bad block range request');
      stream.abort(error as Error);
    }
  }

  // --- pending protocol ------------------------------------------------------------------------

  /** Up to a push's worth of pending transactions at least `minAgeMs` old, oldest first, as raw bytes (encoded once for every peer). */
  private pendingRaws(minAgeMs: number): Uint8Array[] {
    const raws: Uint8Array[] = [];
    for (const tx of this.chain.pendingSince(minAgeMs)) {
      if (raws.length >= MAX_PENDING_PUSH) break;
      raws.push(this.chain.rawTransaction(tx));
    }
    return raws;
  }

  private async pushPendingTo(peer: string, raws: readonly Uint8Array[]): Promise<void> {
    if (raws.length === 0 || this.stopController.signal.aborted) return;
    try {
      await pushPending(this.net, peerIdFromString(peer), raws, this.requestSignal());
      this.log.debug({ peer, transactions: raws.length }, 'pending transactions pushed');
    } catch (error) {
      if (!this.stopController.signal.aborted)
        this.log.debug({ peer, err: error }, 'pushing pending transactions failed');
    }
  }

  /** Pending transactions that outlived a re-announce period go to every peer again. */
  private reannounce(): void {
    if (!this.network || this.announcedTo.size === 0) return;
    const stale = this.pendingRaws(REANNOUNCE_EVERY_MS);
    for (const peer of this.announcedTo) void this.pushPendingTo(peer, stale);
  }

  private async receivePending(stream: Stream, connection: Connection): Promise<void> {
    const peer = connection.remotePeer.toString();
    if (this.peers.refuses(peer)) return stream.abort(new Error('refused peer'));
    try {
      // Known, mined or stale transactions are refused by the mempool as usual; that is expected here.
      await receivePending(
        stream,
        (raw) =>
          this.chain.submitRaw(raw, { fromPeer: true }).then(
            () => undefined,
            () => undefined,
          ),
        this.requestSignal(),
      );
    } catch (error) {
      this.log.debug({ peer, err: error }, 'bad pending push');
      stream.abort(error as Error);
    }
  }

  // --- gossip ----------------------------------------------------------------------------------

  private async onGossipBlock(peer: string, data: Uint8Array): Promise<TopicValidatorResult> {
    let bundle: BlockBundle;
    try {
      const gossiped = peekGossipBlock(data);
      // Committed here already (by consensus, on a validator): nothing to check or relay.
      if (gossiped.height <= this.chain.head.height) return TopicValidatorResult.Ignore;
      bundle = decodeBundle(gossiped.bundle);
      if (bundle.block.height !== gossiped.height)
        throw new Error(`it says height ${gossiped.height} for block ${bundle.block.height}`);
    } catch (error) {
      this.refuse(peer, `gossiped an undecodable block: ${(error as Error).message}`);
      return TopicValidatorResult.Reject;
    }
    const { block } = bundle;
    if (!bundle.commit) {
      this.refuse(peer, `gossiped block ${block.height} without its commit certificate`);
      return TopicValidatorResult.Reject;
    }
    const problem = this.chain.headerProblem(block);
    if (problem) {
      this.refuse(peer, `gossiped block ${block.height}: ${problem}`);
      return TopicValidatorResult.Reject;
    }
    if (block.height <= this.chain.head.height) return TopicValidatorResult.Ignore;
    this.peers.setHead(peer, { height: block.height, hash: block.hash });
    this.reportBestHead();
    // The block after the head, or after the block still importing: a block that arrives while its
    // parent imports is queued behind it (a range request for it would cost a round trip and the
    // proposer's time). Anything else is a gap the range sync fills.
    if (block.height === Math.max(this.chain.head.height, this.queuedTip) + 1 && bundle.raws) {
      this.queuedTip = block.height;
      try {
        if (!(await this.importInOrder(bundle, 'gossip'))) this.gossipImportFailed();
      } catch (error) {
        this.gossipImportFailed();
        if (!(error instanceof BlockRejectedError)) throw error;
        this.refuse(peer, error.message);
        return TopicValidatorResult.Reject;
      }
    } else {
      this.syncer.poke();
    }
    return TopicValidatorResult.Accept;
  }

  /**
   * A batch of transactions: each admitted through the usual checks (together, so the decoding
   * worker takes them in one go). Passed on when it brought anything new; refused when it holds a
   * transaction no honest node would relay (undecodable, badly signed, of another chain).
   */
  private async onGossipTransactions(data: Uint8Array): Promise<TopicValidatorResult> {
    let raws: Uint8Array[];
    try {
      raws = decodeTransactionBatch(data);
    } catch {
      return TopicValidatorResult.Reject;
    }
    const outcomes = await Promise.all(
      raws.map((raw) =>
        this.chain.submitRaw(raw, { viaGossip: true }).then(
          () => 'admitted' as const,
          (error: unknown) => (INVALID_TX.has((error as Error).message) ? ('invalid' as const) : ('refused' as const)),
        ),
      ),
    );
    if (outcomes.includes('invalid')) return TopicValidatorResult.Reject;
    return outcomes.includes('admitted') ? TopicValidatorResult.Accept : TopicValidatorResult.Ignore;
  }

  /** A queued block did not import (its parent did not, or it is invalid): the range sync takes over from the head. */
  private gossipImportFailed(): void {
    this.queuedTip = this.chain.head.height;
    this.syncer.poke();
  }

  /** One import at a time, each the block right after the head; false when it's no longer new. */
  private importInOrder(bundle: BlockBundle, source: 'sync' | 'gossip'): Promise<boolean> {
    const run = async (): Promise<boolean> => {
      if (bundle.block.height <= this.chain.head.height) return false;
      if (bundle.block.height !== this.chain.head.height + 1 || !bundle.raws || !bundle.commit) return false;
      await this.chain.importBlock(bundle.block, bundle.raws, bundle.commit, { catchingUp: !this.synced });
      this.events.emit('p2p:imported', { height: bundle.block.height, source });
      return true;
    };
    const result = this.importQueue.then(run, run);
    this.importQueue = result.catch(() => undefined);
    return result;
  }

  private publishBlock(bundle: BlockBundle): void {
    if (!this.listening(this.topics.blocks)) return;
    // Sized before encoding: a big block's encoding is large work, and it would not be sent anyway.
    let rawBytes = 0;
    for (const raw of bundle.raws ?? []) rawBytes += raw.length;
    const data = encodeGossipBlock(
      rawBytes + 200 * bundle.block.transactions.length > MAX_GOSSIP_BLOCK_BYTES ? { ...bundle, raws: null } : bundle,
    );
    this.publish(this.topics.blocks, data);
  }

  /**
   * A transaction admitted from this node's clients goes out in a batch with the others admitted
   * within a few milliseconds: one gossip message per transaction costs every peer a message's
   * framing, encryption and bookkeeping for a few hundred bytes, and under load that, not the
   * transactions, is what the nodes spend their time on. The first few batches in a window leave at
   * the end of the current turn, with those admitted in the same turn: a lone transaction (a
   * provider's commitment, a client's transfer) does not wait for company that is not coming.
   */
  private queueTransaction(hash: string): void {
    if (!this.listening(this.topics.transactions)) {
      this.admittedAlone = true;
      return;
    }
    this.outgoing.push(hash);
    if (this.outgoing.length >= MAX_GOSSIP_TX_BATCH) return this.flushTransactions();
    const oldest = this.flushes.length < QUICK_TX_BATCHES ? -Infinity : this.flushes[0]!;
    this.flushTimer ??= setTimeout(
      () => this.flushTransactions(),
      Math.max(0, oldest + TX_BATCH_WINDOW_MS - performance.now()),
    );
  }

  private flushTransactions(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flushes.push(performance.now());
    if (this.flushes.length > QUICK_TX_BATCHES) this.flushes.shift();
    const hashes = this.outgoing.splice(0);
    let batch: string[] = [];
    let raws: Uint8Array[] = [];
    let bytes = 0;
    for (const hash of hashes) {
      const tx = this.chain.pendingTransaction(hash);
      if (!tx) continue;
      const raw = this.chain.rawTransaction(tx);
      batch.push(hash);
      raws.push(raw);
      bytes += raw.length;
      if (raws.length >= MAX_GOSSIP_TX_BATCH || bytes >= GOSSIP_TX_BATCH_BYTES) {
        this.publishTransactions(batch, raws);
        [batch, raws, bytes] = [[], [], 0];
      }
    }
    if (raws.length > 0) this.publishTransactions(batch, raws);
  }

  private publishTransactions(hashes: readonly string[], raws: readonly Uint8Array[]): void {
    const holdBack = (): void => this.holdBack(hashes);
    if (!this.publish(this.topics.transactions, encodeTransactionBatch(raws), holdBack)) holdBack();
  }

  /** Held back until a peer listens, when nobody does now or no peer could be sent them. */
  private holdBack(hashes: readonly string[]): void {
    for (const hash of hashes) {
      if (this.unsent.size >= MAX_UNSENT) this.unsent.delete(this.unsent.values().next().value!);
      this.unsent.add(hash);
    }
  }

  /** A peer now listens for transactions: send it what was admitted here while nobody did, and what reached no one. */
  private publishUnsent(): void {
    const hashes = new Set(this.unsent);
    this.unsent.clear();
    if (this.admittedAlone) {
      this.admittedAlone = false;
      for (const tx of this.chain.pendingSince(0)) {
        if (hashes.size >= MAX_UNSENT) break;
        hashes.add(tx.hash);
      }
    }
    for (const hash of hashes) this.queueTransaction(hash);
  }

  /** Whether any peer listens on a topic (a lone validator has none). */
  private listening(topic: string): boolean {
    return (
      this.network !== undefined &&
      !this.stopController.signal.aborted &&
      this.network.services.pubsub.getSubscribers(topic).length > 0
    );
  }

  /**
   * Publishes unless no peer listens on the topic (then false: publishing would only hash and cache it).
   * `undelivered` runs when no peer could be sent it after all (a subscriber whose stream is not open yet).
   */
  private publish(topic: string, data: Uint8Array, undelivered?: () => void): boolean {
    if (!this.listening(topic)) return false;
    this.network!.services.pubsub.publish(topic, data).then(
      (result) => {
        if (result.recipients.length > 0) this.events.emit('p2p:gossip', { direction: 'out' });
        else undelivered?.();
      },
      // The same content is one message: republishing what a peer already sent is refused, harmlessly.
      (error: unknown) => this.log.trace({ err: error, topic }, 'gossip not published'),
    );
    return true;
  }

  private requestSignal(): AbortSignal {
    return timeoutSignal(REQUEST_TIMEOUT_MS, this.stopController.signal);
  }
}
