import { join } from 'node:path';
import { decode, encode } from '../../sdk/encoding.js';
import { toHex } from '../../sdk/bytes.js';
import { formatAmountShort } from '../../sdk/amount.js';
import type { KeyPair } from '../../sdk/keys.js';
import { signWith } from '../../sdk/keys.js';
import { signTransaction, type SignedTransaction } from '../../sdk/transaction.js';
import type { ConsensusChain } from '../../chain/capabilities.js';
import type { Block } from '../../chain/schemas.js';
import type { Logger } from '../../kernel/log.js';
import type { ScopedEvents } from '../../kernel/events.js';
import type { P2pService, GossipVerdict } from '../../p2p/service.js';
import { decodeBundle, encodeBundle } from '../../p2p/wire.js';
import { Tendermint, type Proposal, type Step, type Timeouts } from '../../consensus/tendermint.js';
import type { Validator } from '../../consensus/validator-set.js';
import type { Vote } from '../../consensus/vote-set.js';
import {
  certificateOf,
  commitProblem,
  proposalSignBytes,
  proposalSigned,
  voteSignBytes,
  voteSigned,
  type CommitCertificate,
  type SignedProposal,
  type SignedVote,
} from '../../consensus/messages.js';
import { DoubleSignRefused, SignState } from '../../consensus/sign-state.js';
import type { StakingService } from '../staking/service.js';
import { proposalDeadline } from './proposal-deadline.js';
import { fillBlock, pendingRaw, type FilledBlock } from './block-transactions.js';
import { BLOCK_TRANSACTIONS_PROTOCOL, requestTransactions } from './transactions-protocol.js';
import { timeoutSignal } from '../../kernel/timeout-signal.js';

/**
 * A proposed block's transactions are capped at this many bytes: a validator that holds none of them
 * fetches them all in one answer, and the committed block still travels whole on the blocks topic
 * (gossip takes messages up to 2 MiB) to the nodes that are not validators.
 */
const MAX_PROPOSAL_BYTES = 1_536 * 1024;
/** The gossip topic consensus runs on (under this chain's prefix). 2: blocks travel as their transactions' hashes. */
export const CONSENSUS_TOPIC = 'consensus/2';

/** `svc_consensusState` of a validator running consensus: powers in OGT. */
export interface ConsensusView {
  readonly height: number;
  readonly round: number;
  readonly step: Step;
  readonly lockedRound: number;
  readonly validRound: number;
  readonly prevotePower: string;
  readonly precommitPower: string;
  readonly onlinePower: string;
  readonly totalPower: string;
}

/**
 * What travels on the consensus topic: a proposal with its block (and, for a value carried from an
 * earlier round, the prevotes of more than 2/3 for it there: its proof of lock), a vote, or a decided
 * block with its certificate. A block travels as its header and its transactions' hashes (a bundle
 * without raws): each validator has nearly all of them in its mempool already, from gossip, and
 * fetches the rest from the peer that relayed the block.
 */
type ConsensusMessage =
  | {
      readonly kind: 'proposal';
      readonly proposal: SignedProposal;
      readonly bundle: Uint8Array;
      readonly pol?: readonly SignedVote[];
    }
  | { readonly kind: 'vote'; readonly vote: SignedVote }
  | { readonly kind: 'commit'; readonly certificate: CommitCertificate; readonly bundle: Uint8Array };

interface HeldBlock {
  readonly block: Block;
  readonly raws: readonly Uint8Array[];
  readonly checked?: ReadonlyMap<string, SignedTransaction>;
}

/** How long a validator waits for a peer's answer with a block's missing transactions, at most. */
const FETCH_TIMEOUT_MS = 10_000;

export interface DriverOptions {
  readonly chain: ConsensusChain;
  readonly staking: StakingService;
  readonly p2p: P2pService;
  readonly events: ScopedEvents;
  readonly key: KeyPair;
  readonly dataDir: string;
  /** The wait after a commit before the next height starts (CometBFT's timeout_commit): the block time. */
  readonly blockTime: number;
  readonly log: Logger;
}

/**
 * Runs Tendermint for this validator over the network: proposals (with their blocks), votes and
 * decided blocks on one gossip topic; every signature through the signing state on disk first; a
 * proposal voted for only once its block executed here to its header's roots; a decided block
 * committed, then the next height after the block time.
 */
export class ConsensusDriver {
  private readonly machine: Tendermint;
  private readonly signState: SignState;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Blocks of this height's proposals, by hash, with their transactions (and those of them fetched, already checked). */
  private readonly blocks = new Map<string, HeldBlock>();
  /** The raw transactions of the blocks held, by transaction hash: what peers that lack them ask for. */
  private readonly heldRaws = new Map<string, Uint8Array>();
  /** Blocks whose transactions are being gathered, by block hash: a proposal sent again waits for the same. */
  private readonly filling = new Map<string, Promise<FilledBlock>>();
  private readonly stopping = new AbortController();
  private topic: { publish(data: Uint8Array): boolean } | undefined;
  /**
   * What this validator sent at the current height (and its last commit), sent again every block time
   * until the height is decided: gossip delivers a message once, to the peers in the mesh then, and a
   * vote lost to a peer that had not joined yet would otherwise stall the round.
   */
  private sent: ConsensusMessage[] = [];
  private resender: NodeJS.Timeout | undefined;
  /** The height a decision scheduled to start after the block time. */
  private pendingStart: number | undefined;
  private off: (() => void) | undefined;
  private stopped = false;
  /** When each validator was last heard from (a verified message of its own). */
  private readonly heard = new Map<string, number>();
  /** Precommits for the head block by `height/round/hash`, validator -> signature: carried in the next block. */
  private readonly late = new Map<string, Map<string, string>>();
  /** Whether each proposed block of this height executed to its header here, by hash: a proposal sent again is not executed again. */
  private readonly validity = new Map<string, boolean>();
  /** The height/round last entered (for the round events). */
  private lastRound = '';
  /**
   * When this validator entered the round it last entered (performance.now()), and that round's propose
   * timeout: its proposal's deadline counts from there, and ends before the timeout.
   */
  private roundBegan = { height: -1, round: -1, at: 0, proposeTimeoutMs: 0 };
  /** When this validator learned the height it last decided was decided (performance.now()). */
  private lastDecision = { height: -1, at: 0 };
  /** When each proposed block of this height was first seen here (made or received), by hash. */
  private readonly proposalSeen = new Map<string, number>();
  /** Rounds whose proposal is being checked, with the propose timeouts that fired meanwhile. */
  private readonly checking = new Map<string, Array<() => void>>();
  /** Offences already sent as evidence (validator/height/round/step). */
  private readonly reported = new Set<string>();
  private work: Promise<unknown> = Promise.resolve();
  decided = 0;

  constructor(private readonly options: DriverOptions) {
    this.signState = SignState.open(join(options.dataDir, 'consensus-sign-state.json'));
    // A dead proposer costs one block time and a round; each further round waits longer, so a slow network still gets through.
    const t = options.blockTime;
    const timeouts: Timeouts = {
      propose: { base: t, delta: t / 2 },
      prevote: { base: t / 2, delta: t / 2 },
      precommit: { base: t / 2, delta: t / 2 },
    };
    this.machine = new Tendermint(
      {
        self: this.self(),
        powers: () => new Map(options.staking.currentSet().validators.map((v) => [v.operator, v.power])),
        proposer: (height, round) => options.staking.proposerOf(height, round).proposer.operator,
        propose: (height, round, validValue, validRound) =>
          void this.serial(() => this.propose(height, round, validValue, validRound)),
        broadcastVote: (vote) => this.sendVote(vote),
        schedule: (step, height, round, ms) => this.schedule(step, height, round, ms),
        decide: (height, round, value, commit) => {
          this.lastDecision = { height, at: performance.now() };
          void this.serial(() => this.decide(height, round, value, commit as SignedVote[]));
        },
        equivocation: (evidence) =>
          this.reportEquivocation(evidence.first as SignedVote, evidence.second as SignedVote),
      },
      timeouts,
    );
  }

  private self(): string | undefined {
    return this.options.staking.memberByKey(toHex(this.options.key.publicKey))?.operator;
  }

  get round(): { height: number; round: number; step: Step } {
    const { height, round, step } = this.machine.state();
    return { height, round, step };
  }

  /** Where this validator stands: height, round, step, its lock, the votes seen this round, and the power heard from lately. */
  describe(): ConsensusView {
    const state = this.machine.state();
    const votes = this.machine.votesAt(state.round);
    const recent = Date.now() - 3 * Math.max(this.options.blockTime, 1000);
    const set = this.options.staking.currentSet().validators;
    const self = this.self();
    const online = set
      .filter((v) => v.operator === self || (this.heard.get(v.operator) ?? 0) >= recent)
      .reduce((sum, v) => sum + v.power, 0n);
    return {
      height: state.height,
      round: state.round,
      step: state.step,
      lockedRound: state.lockedRound,
      validRound: state.validRound,
      prevotePower: formatAmountShort(votes.prevotes),
      precommitPower: formatAmountShort(votes.precommits),
      onlinePower: formatAmountShort(online),
      totalPower: formatAmountShort(votes.total),
    };
  }

  start(): void {
    this.topic = this.options.p2p.gossipTopic(CONSENSUS_TOPIC, (data, peer) => this.receive(data, peer));
    this.options.p2p.takeBlockGossip(false);
    this.resender = setInterval(
      () => {
        for (const message of this.sent) if (this.worthResending(message)) this.send(message);
      },
      Math.max(200, this.options.blockTime),
    );
    // A block that came by import (sync or a peer's gossip) while this validator was still on its height: move on to the next.
    this.off = this.options.events.on('chain:block', () => this.followHead());
    this.startHeight(this.options.chain.head.height + 1);
  }

  /**
   * Sent again: the commit, and what belongs to the round this validator is in or the one before (a
   * peer a round behind catches up on them; older rounds' messages would only make every peer check
   * them again, and at many rounds that work outgrows the rounds themselves).
   */
  private worthResending(message: ConsensusMessage): boolean {
    if (message.kind === 'commit') return true;
    const { round } = this.machine.state();
    const of = message.kind === 'vote' ? message.vote.round : message.proposal.round;
    return of >= round - 1;
  }

  private followHead(): void {
    const next = this.options.chain.head.height + 1;
    if (this.stopped || this.pendingStart === next || this.machine.state().height >= next) return;
    this.release();
    this.sent = [];
    this.options.log.info(
      { height: next },
      'the chain moved on without this validator deciding: joining the next height',
    );
    this.startHeight(next);
  }

  /**
   * A height, with what this validator's signing state holds for it after a restart mid-height: the
   * round and step it signed last, its lock, and its last vote, sent again (it may have died before
   * the vote left; a peer that has it ignores it) and counted — the round goes on from there, and the
   * validator does not try to vote in that step again, which its signing state would refuse.
   */
  private startHeight(height: number): void {
    const lock = this.signState.lockAt(height);
    const last = this.signState.lastSigned();
    const here = last && last.height === height ? last : undefined;
    const round = here?.round ?? 0;
    const restored = lock
      ? { round, lockedValue: lock.value, lockedRound: lock.round, validValue: lock.value, validRound: lock.round }
      : { round, lockedValue: null, lockedRound: -1, validValue: null, validRound: -1 };
    this.machine.startHeight(height, { ...restored, ...(here ? { signed: here.step } : {}) });
    // Every vote it signed in this round, not only the last: it may have died before an earlier one left.
    const signed = here
      ? [
          ...here.earlier,
          ...(here.step !== 'proposal' && here.message ? [{ message: here.message, signature: here.signature }] : []),
        ]
      : [];
    for (const { message, signature } of signed) {
      const vote = { ...(message as Vote), signature: `0x${signature}` } as SignedVote;
      this.publish({ kind: 'vote', vote });
      this.machine.onVote(vote);
    }
    if (here)
      this.options.log.info(
        { height, round, step: here.step, locked: lock ?? null },
        'resumed a height this validator had signed in',
      );
  }

  stop(): void {
    this.stopped = true;
    this.stopping.abort();
    this.options.p2p.takeBlockGossip(true);
    this.off?.();
    clearInterval(this.resender);
    for (const timer of this.timers) clearTimeout(timer);
  }

  /** One piece of chain work at a time (a proposal built, checked or committed). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.work.then(work, work);
    this.work = run.catch((error: unknown) =>
      this.options.log.warn({ err: error }, `consensus step failed: ${(error as Error).message}`),
    );
    return run;
  }

  private schedule(step: Step, height: number, round: number, ms: number): void {
    if (this.lastRound !== `${height}/${round}`) {
      this.lastRound = `${height}/${round}`;
      this.options.events.emit('consensus:round', { height, round });
    }
    const scheduled = performance.now();
    if (step === 'propose') this.roundBegan = { height, round, at: scheduled, proposeTimeoutMs: ms };
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const fire = (): void => {
        if (this.stopped) return;
        const moved = this.machine.onTimeout(step, height, round);
        // A round that needed its timeout is one that went wrong somewhere: say which step, and after how long.
        if (moved)
          this.options.log.info(
            { height, round, timeout: step, waitedMs: Math.round(performance.now() - scheduled), moved },
            `the ${step} timeout fired: ${moved}`,
          );
      };
      const waiting = step === 'propose' ? this.checking.get(`${height}/${round}`) : undefined;
      if (waiting) waiting.push(fire);
      else fire();
    }, ms);
    this.timers.add(timer);
  }

  /**
   * The round's proposal arrived and its block is being executed: the round's propose timeout waits
   * for the outcome (CometBFT's counts until the proposal arrives, not until it is checked). On a busy
   * machine a big block's execution outlasted the timeout, and validators prevoted nil on a good block.
   */
  private async whileChecking<T>(height: number, round: number, check: () => Promise<T>): Promise<T> {
    const key = `${height}/${round}`;
    const owner = !this.checking.has(key);
    if (owner) this.checking.set(key, []);
    try {
      return await check();
    } finally {
      if (owner) {
        // After the verdict has been passed to the state machine (judge does it): the timeout then finds the step moved on.
        const deferred = this.checking.get(key)!;
        this.checking.delete(key);
        if (deferred.length > 0)
          setImmediate(() => {
            for (const fire of deferred) fire();
          });
      }
    }
  }

  private publish(message: ConsensusMessage): void {
    this.sent.push(message);
    this.send(message);
  }

  /** With the time it is sent: gossip takes equal content for the message it already saw, and would not send it again. */
  private send(message: ConsensusMessage): void {
    this.topic?.publish(encode({ ...message, sentAt: Date.now() }));
  }

  private sign(
    height: number,
    round: number,
    step: 'proposal' | 'prevote' | 'precommit',
    bytes: Uint8Array,
    locks?: string,
    message?: Vote,
  ): string | undefined {
    try {
      return toHex(
        this.signState.sign(height, round, step, bytes, (b) => signWith(this.options.key, b), locks, message),
      );
    } catch (error) {
      if (error instanceof DoubleSignRefused)
        return void this.options.log.error({ err: error }, 'refused to sign: it could be a double sign');
      throw error;
    }
  }

  private async propose(height: number, round: number, validValue: string | null, validRound: number): Promise<void> {
    if (this.stopped || height !== this.options.chain.head.height + 1) return;
    await this.carryLatePrecommits();
    // Its turn passed while earlier work ran or that read the store (the round timed out): a block built
    // for it now would be thrown away, and a proposal refused by the signing state anyway.
    if (!this.proposingIn(height, round)) return;
    let held: { block: Block; raws: readonly Uint8Array[] } | undefined = validValue
      ? this.blocks.get(validValue)
      : undefined;
    if (!held) {
      const block = await this.options.chain.proposeBlock(
        this.options.key,
        Math.max(Date.now(), this.options.chain.head.timestamp + 1),
        MAX_PROPOSAL_BYTES,
        this.proposalDeadline(height, round),
      );
      held = this.hold({
        block,
        raws: block.transactions.map((hash) =>
          this.options.chain.rawTransaction(this.options.chain.pendingTransaction(hash)!),
        ),
      });
      this.validity.set(block.hash, true);
      if (!this.proposalSeen.has(block.hash)) this.proposalSeen.set(block.hash, performance.now());
      // Built past the round's propose timeout (this validator prevoted nil meanwhile: its signing state
      // would refuse it), or the height was decided meanwhile.
      if (!this.proposingIn(height, round)) {
        this.options.log.info(
          { height, round, transactions: block.transactions.length },
          'built a block too late to propose it: the round had moved on',
        );
        return;
      }
    }
    // A carried value whose block this node no longer has (it restarted) is not re-proposed: a new block goes with no valid round.
    const proposal: Proposal = {
      height,
      round,
      value: held.block.hash,
      validRound: held.block.hash === validValue ? validRound : -1,
      proposer: this.self()!,
    };
    const signature = this.sign(
      height,
      round,
      'proposal',
      proposalSignBytes(this.options.chain.head.chainId, proposal),
    );
    if (!signature) return;
    const pol =
      proposal.validRound >= 0 ? (this.machine.polka(proposal.validRound, proposal.value) as SignedVote[]) : [];
    this.publish({
      kind: 'proposal',
      proposal: { ...proposal, signature },
      bundle: encodeBundle({ block: held.block, raws: null, commit: null }),
      ...(pol.length > 0 ? { pol } : {}),
    });
    const entered = this.entered(height, round);
    if (entered)
      this.options.log.debug(
        {
          height,
          round,
          transactions: held.block.transactions.length,
          sentMs: Math.round(performance.now() - entered.at),
        },
        'proposed a block',
      );
    this.machine.onProposal(proposal, true);
  }

  /** Whether this validator is still in the propose step of this round, with the height undecided. */
  private proposingIn(height: number, round: number): boolean {
    const now = this.machine.state();
    return now.height === height && now.round === round && now.step === 'propose' && !now.decided;
  }

  /** When this validator entered this round (performance.now()) and its propose timeout, if it is the round it last entered. */
  private entered(height: number, round: number): { at: number; proposeTimeoutMs: number } | undefined {
    return this.roundBegan.height === height && this.roundBegan.round === round ? this.roundBegan : undefined;
  }

  /** When the proposer's block is to be finished (performance.now() ms): see proposal-deadline.ts. */
  private proposalDeadline(height: number, round: number): number {
    const now = performance.now();
    const { blockTime } = this.options;
    return proposalDeadline({
      now,
      blockTime,
      round,
      entered: this.entered(height, round),
      headDue: now - (Date.now() - (this.options.chain.head.timestamp + blockTime)),
      ...(this.lastDecision.height === height - 1 ? { decidedAt: this.lastDecision.at } : {}),
    });
  }

  /**
   * The head's certificate grows by the precommits for it that came after the decision (CometBFT's
   * proposer also carries the precommits it gathered during the commit wait): the block carries who
   * signed, and a validator that voted in time must not count as missing.
   */
  private async carryLatePrecommits(): Promise<void> {
    const { chain } = this.options;
    const head = chain.head;
    const base = await chain.getCommit(head.height);
    if (!base) return;
    const late = this.late.get(`${head.height}/${base.round}/${head.hash}`);
    if (!late) return;
    const signatures = [...base.signatures];
    for (const [validator, signature] of late)
      if (!signatures.some((s) => s.validator === validator)) signatures.push({ validator, signature });
    if (signatures.length > base.signatures.length) await chain.improveHeadCommit({ ...base, signatures });
  }

  /**
   * The proof of lock a proposal of a carried value travels with: prevotes of its valid round for its
   * value, each verified and counted as if it had come on its own. What is wrong with it, if anything.
   */
  private takePol(
    chainId: string,
    set: readonly Validator[],
    proposal: SignedProposal,
    pol: readonly SignedVote[],
  ): string | undefined {
    if (pol.length > set.length) return 'a proof of lock of more votes than validators';
    for (const vote of pol) {
      if (
        vote.type !== 'prevote' ||
        vote.height !== proposal.height ||
        vote.round !== proposal.validRound ||
        vote.value !== proposal.value
      )
        return 'a proof of lock with a vote for something else';
      if (!voteSigned(chainId, set, vote)) return 'a proof of lock with a vote whose signature does not verify';
    }
    for (const vote of pol) this.machine.onVote(vote);
    return undefined;
  }

  /** A precommit for the head block, signed by a member of the set that governed it: kept to carry in the next block. */
  private latePrecommit(vote: SignedVote): boolean {
    const head = this.options.chain.head;
    if (vote.type !== 'precommit' || vote.value !== head.hash) return false;
    if (!voteSigned(head.chainId, this.options.staking.headSet(), vote)) return false;
    const key = `${head.height}/${vote.round}/${head.hash}`;
    if (!this.late.has(key)) {
      // Only the head's precommits are worth keeping.
      this.late.clear();
      this.late.set(key, new Map());
    }
    this.late.get(key)!.set(vote.validator, vote.signature);
    return true;
  }

  /**
   * Two signed votes of one validator for one step and different values: sent to the chain as
   * evidence (signed with this node's key; it gets the slashed stake), once per offence.
   */
  private reportEquivocation(first: SignedVote, second: SignedVote): void {
    const offence = `${first.validator}/${first.height}/${first.round}/${first.type}`;
    this.options.log.warn(
      { validator: first.validator, height: first.height, round: first.round, step: first.type },
      'two different signed votes of one validator: submitting the evidence',
    );
    if (this.reported.has(offence)) return;
    this.reported.add(offence);
    const vote = (v: SignedVote) => ({
      type: v.type,
      height: v.height,
      round: v.round,
      value: v.value,
      validator: v.validator,
      signature: v.signature,
    });
    const { chain, key } = this.options;
    try {
      chain
        .submit(
          signTransaction(
            {
              chainId: chain.head.chainId,
              kind: 'staking.submitEvidence',
              nonce: chain.nextNonce(key.address),
              payload: { first: vote(first), second: vote(second) },
            },
            key,
          ),
        )
        .catch((error: unknown) =>
          this.options.log.warn(
            { err: error, validator: first.validator },
            'the evidence of equivocation is pending but not journaled',
          ),
        );
    } catch (error) {
      this.reported.delete(offence);
      this.options.log.error(
        { err: error, validator: first.validator },
        'the evidence of equivocation was not admitted',
      );
    }
  }

  private sendVote(vote: Vote): void {
    const locks = vote.type === 'precommit' && vote.value !== null ? vote.value : undefined;
    const signature = this.sign(
      vote.height,
      vote.round,
      vote.type,
      voteSignBytes(this.options.chain.head.chainId, vote),
      locks,
      vote,
    );
    if (!signature) return;
    const signed: SignedVote = { ...vote, signature };
    this.publish({ kind: 'vote', vote: signed });
    this.options.events.emit('consensus:vote', { type: vote.type, direction: 'out' });
    // The machine counts its own vote as any other (after the call that asked for it returns).
    queueMicrotask(() => this.machine.onVote(signed));
  }

  private async decide(height: number, round: number, value: string, precommits: SignedVote[]): Promise<void> {
    const held = this.blocks.get(value);
    // The next height starts a block time after this block: not at once when its commit announces the block.
    this.pendingStart = height + 1;
    let failed = true;
    try {
      if (height === this.options.chain.head.height + 1) {
        if (!held) throw new Error(`decided block ${value} at ${height} is not here`);
        const certificate = certificateOf(height, round, value, precommits);
        await this.options.chain.checkProposal(held.block, held.raws, held.checked);
        await this.options.chain.commitProposal(value, certificate);
        this.decided += 1;
        this.options.events.emit('consensus:committed', {
          height,
          round,
          proposalToCommitMs: performance.now() - (this.proposalSeen.get(value) ?? performance.now()),
        });
        this.publish({
          kind: 'commit',
          certificate,
          bundle: encodeBundle({ block: held.block, raws: null, commit: null }),
        });
      }
      failed = false;
    } finally {
      this.release();
      // Only the commit stays to send again: it brings a validator that missed the decision along.
      this.sent = this.sent.filter((m) => m.kind === 'commit' && m.certificate.height === height);
      this.pendingStart = this.options.chain.head.height + 1;
      const wait = Math.max(0, this.options.chain.head.timestamp + this.options.blockTime - Date.now());
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.pendingStart = undefined;
        if (this.stopped) return;
        // The head as it is now: a block may have come by import during the wait (a validator paused
        // past its peers' next block commits it late, or fails to, and imports theirs meanwhile).
        const next = this.options.chain.head.height + 1;
        const at = this.machine.state().height;
        // A decision that could not be committed starts its height again (the block comes by sync or a new round).
        if (at < next || (failed && at === height)) this.startHeight(next);
      }, wait);
      this.timers.add(timer);
    }
  }

  private hold(held: HeldBlock): HeldBlock {
    this.blocks.set(held.block.hash, held);
    for (const [i, hash] of held.block.transactions.entries()) this.heldRaws.set(hash, held.raws[i]!);
    return held;
  }

  /** The height's blocks are done with (decided, or the chain moved on). */
  private release(): void {
    this.blocks.clear();
    this.heldRaws.clear();
    this.validity.clear();
    this.proposalSeen.clear();
  }

  /** A transaction this validator holds unmined: of a block held at this height (proposed or checked), or pending. */
  localTransaction(hash: string): Uint8Array | undefined {
    return this.heldRaws.get(hash) ?? pendingRaw(this.options.chain, hash);
  }

  /**
   * A block that arrived as hashes, with its transactions: from the blocks held and the mempool, the
   * rest asked of `peer` (who relayed it, so judged it, so holds them). One gathering per block.
   */
  private gather(block: Block, peer: string): Promise<FilledBlock> {
    const running = this.filling.get(block.hash);
    if (running) return running;
    const { chain, p2p } = this.options;
    const budget = Math.min(FETCH_TIMEOUT_MS, Math.max(1000, this.options.blockTime));
    const gathering = fillBlock(block, {
      local: (hash) => this.localTransaction(hash),
      // What a fill lacks is mostly still being decoded here: waiting for it costs less than fetching it and decoding it twice.
      admitted: (hashes) => boundedWait(chain.admissionOf(hashes), budget),
      // Its own budget, from when it starts: sharing one with the wait above left a flood's fetch of
      // 1,600 transactions no time at all, and the round failed (BENCHMARKS.md).
      fetch: async (hashes) => {
        const signal = timeoutSignal(budget, this.stopping.signal);
        return requestTransactions(await p2p.openStream(peer, BLOCK_TRANSACTIONS_PROTOCOL, signal), hashes, signal);
      },
      decode: (raws) => chain.decodeTransactions(raws),
    }).finally(() => this.filling.delete(block.hash));
    this.filling.set(block.hash, gathering);
    return gathering;
  }

  /**
   * Whether a proposed block is valid: its transactions gathered, then executed here to its header;
   * the verdict is passed to the state machine here. `missing` when they could not all be had (not
   * judged: the round's propose timeout makes this validator prevote nil as for a proposal that never
   * came); undefined when the height was decided meanwhile.
   */
  private async judge(proposal: SignedProposal, block: Block, peer: string): Promise<boolean | 'missing' | undefined> {
    const at = { height: proposal.height, round: proposal.round };
    const began = performance.now();
    let fetched = 0;
    let held = this.blocks.get(block.hash);
    if (!held) {
      const filled = await this.gather(block, peer);
      if ('missing' in filled) {
        this.options.log.warn(
          { ...at, peer, reason: filled.missing },
          "a proposed block's transactions could not be had",
        );
        return 'missing';
      }
      if ('invalid' in filled) {
        this.options.log.warn({ ...at, reason: filled.invalid }, 'proposed block is not a valid block');
        return this.deliver(proposal, false);
      }
      if (proposal.height !== this.options.chain.head.height + 1) return undefined;
      fetched = filled.checked.size;
      held = this.hold({ block, raws: filled.raws, checked: filled.checked });
    }
    const complete = held;
    const gathered = performance.now();
    return this.serial(async () => {
      // Decided meanwhile (the check waited its turn): the block is the head or a sibling of it, nothing
      // to check. Decided and not yet committed: checking this block would undo the decided one's
      // execution, held for its commit, and the commit would execute it again.
      if (proposal.height !== this.options.chain.head.height + 1 || this.machine.state().decided) return undefined;
      let valid = true;
      const turn = performance.now();
      try {
        await this.options.chain.checkProposal(complete.block, complete.raws, complete.checked);
      } catch (error) {
        this.options.log.warn({ err: error, ...at }, 'proposed block does not execute to its header');
        valid = false;
      }
      // Where a height's time goes on the validators that check its block (the proposer's side is
      // `proposed a block`).
      this.options.log.debug(
        {
          ...at,
          transactions: block.transactions.length,
          fetched,
          gatherMs: Math.round(gathered - began),
          queuedMs: Math.round(turn - gathered),
          checkMs: Math.round(performance.now() - turn),
          valid,
        },
        'checked a proposed block',
      );
      // Before the next piece of chain work starts: when this verdict decides the height, a later
      // round's check queued behind this one must find it decided (passed on by the caller, the
      // verdict arrived a few microtasks after that check had begun executing its block).
      return this.deliver(proposal, valid);
    });
  }

  private deliver(proposal: SignedProposal, valid: boolean): boolean {
    this.validity.set(proposal.value, valid);
    this.machine.onProposal(proposal, valid);
    return valid;
  }

  /** A message from a peer: checked (signature, membership, block execution) before it is taken in and relayed. */
  private async receive(data: Uint8Array, peer: string): Promise<GossipVerdict> {
    let message: ConsensusMessage;
    try {
      message = decode<ConsensusMessage>(data);
    } catch {
      return { reject: 'not a consensus message' };
    }
    const chainId = this.options.chain.head.chainId;
    const set = this.options.staking.currentSet().validators;
    const current = this.options.chain.head.height + 1;
    if (message.kind === 'vote') {
      const vote = message.vote;
      if (vote.height === current - 1) return this.latePrecommit(vote) ? 'accept' : 'ignore';
      if (vote.height < current) return 'ignore';
      if (vote.height > current + 1) return 'ignore';
      if (!voteSigned(chainId, set, vote)) return { reject: 'a vote whose signature does not verify' };
      this.heard.set(vote.validator, Date.now());
      this.options.events.emit('consensus:vote', { type: vote.type, direction: 'in' });
      this.machine.onVote(vote);
      return 'accept';
    }
    if (message.kind === 'proposal') {
      const proposal = message.proposal;
      if (proposal.height !== current) return 'ignore';
      if (!proposalSigned(chainId, set, proposal)) return { reject: 'a proposal whose signature does not verify' };
      const polProblem = this.takePol(chainId, set, proposal, message.pol ?? []);
      if (polProblem) return { reject: polProblem };
      this.heard.set(proposal.proposer, Date.now());
      const bundle = decodeBundle(message.bundle);
      if (bundle.block.hash !== proposal.value) return { reject: 'a proposal without its block' };
      if (!this.proposalSeen.has(proposal.value)) this.proposalSeen.set(proposal.value, performance.now());
      const fromProposer =
        proposal.proposer === this.options.staking.proposerOf(proposal.height, proposal.round).proposer.operator;
      // Gathering the block's transactions counts as checking it: under a flood a validator's mempool
      // is behind the proposer's, and the fetched rest is decoded on a busy worker; the propose
      // timeout firing meanwhile made validators prevote nil on good blocks. A peer that never
      // answers holds it for the fetch's own timeout at most.
      const check = <T>(run: () => Promise<T>): Promise<T> =>
        fromProposer ? this.whileChecking(proposal.height, proposal.round, run) : run();
      const known = this.validity.get(proposal.value);
      if (known !== undefined) {
        this.machine.onProposal(proposal, known);
        return 'accept';
      }
      const valid = await check(() => this.judge(proposal, bundle.block, peer));
      return valid === 'missing' || valid === undefined ? 'ignore' : 'accept';
    }
    const { certificate } = message;
    if (certificate.height !== current) return 'ignore';
    const problem = commitProblem(chainId, set, certificate, certificate.height, certificate.blockHash);
    if (problem) return { reject: `a commit certificate: ${problem}` };
    const bundle = decodeBundle(message.bundle);
    if (bundle.block.hash !== certificate.blockHash) return { reject: 'a commit without its block' };
    if (!this.blocks.has(bundle.block.hash)) {
      const filled = await this.gather(bundle.block, peer);
      // A decided block this validator cannot complete comes by sync instead.
      if (!('raws' in filled) || certificate.height !== this.options.chain.head.height + 1) return 'ignore';
      this.hold({ block: bundle.block, raws: filled.raws, checked: filled.checked });
    }
    const votes: SignedVote[] = certificate.signatures.map(({ validator, signature }) => ({
      type: 'precommit',
      height: certificate.height,
      round: certificate.round,
      value: certificate.blockHash,
      validator,
      signature,
    }));
    this.machine.onCommit(certificate.height, certificate.round, certificate.blockHash, votes);
    return 'accept';
  }
}

/** `work`, or `ms` if that comes first (the work goes on). */
function boundedWait(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, waited]).finally(() => clearTimeout(timer));
}
