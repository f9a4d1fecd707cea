import { formatAmountShort } from '../../sdk/amount.js';
import type { ChainReader } from '../../chain/capabilities.js';
import { proposerAfter, totalPower, type PrioritizedValidator } from '../../consensus/validator-set.js';
import { genesisSet, setGoverning } from './end-block.js';
import { epochBlocks } from './params.js';
import {
  jailedKey,
  readMissed,
  readNumber,
  readOperators,
  readSet,
  readValidator,
  tombstonedKey,
  type StoredSet,
  type ValidatorRecord,
} from './state.js';
import { livenessParams } from './params.js';
import type { ConsensusStateView, StakingStatus } from '../../sdk/views.js';
import type { ValidatorSetView } from '../../sdk/views.js';

/** The staking rules' service on every node: the validator set in force at the head, and who proposes. */
/** What a validator node adds to `svc_consensusState`: its mode and, running consensus, its round. */
export type ValidatorConsensusState = Omit<ConsensusStateView, 'lastCommit' | 'mode'> & {
  mode: Exclude<ConsensusStateView['mode'], 'observer'>;
};

export class StakingService {
  private validatorState: (() => ValidatorConsensusState) | undefined;

  constructor(readonly chain: ChainReader) {}

  /** The validator plugin's own view of consensus, shown by `svc_consensusState`. */
  attachValidator(state: () => ValidatorConsensusState): void {
    this.validatorState = state;
  }

  /**
   * `svc_consensusState` on any node: the height being decided, the head's certificate (who signed,
   * with what power, how long ago) and, on a validator, its mode and round.
   */
  async consensusState(): Promise<ConsensusStateView> {
    const head = this.chain.head;
    const commit = head.height > 0 ? await this.chain.getCommit(head.height) : undefined;
    const set = this.headSet();
    const signed = new Set(commit?.signatures.map((s) => s.validator) ?? []);
    const signedPower = set.filter((v) => signed.has(v.operator)).reduce((sum, v) => sum + v.power, 0n);
    return {
      mode: 'observer',
      height: head.height + 1,
      ...this.validatorState?.(),
      lastCommit: commit
        ? {
            height: commit.height,
            round: commit.round,
            signers: commit.signatures.length,
            signedPower: formatAmountShort(signedPower),
            totalPower: formatAmountShort(totalPower(set)),
            ageMs: Math.max(0, Date.now() - head.timestamp),
          }
        : null,
    };
  }

  private read = (key: string): Uint8Array | undefined => this.chain.state.get(key);

  /** The set in force after the head, the block it took over after, and the set before it. */
  currentSet(): StoredSet {
    return readSet(this.read) ?? genesisSet(this.chain.genesis);
  }

  /**
   * The set that governs block `height`, from a state read inside a block (its parent's, or its own
   * after its end steps for the block after it): what another module's rules weigh votes by.
   */
  setFor(read: (key: string) => Uint8Array | undefined, height: number): readonly PrioritizedValidator[] {
    return setGoverning(readSet(read) ?? genesisSet(this.chain.genesis), height);
  }

  /** The set that governed the head block (its certificate is judged by it). */
  headSet(): readonly PrioritizedValidator[] {
    return setGoverning(this.currentSet(), this.chain.head.height);
  }

  /** The proposer of `height` (after the set's epoch end) in `round`, and the set's priorities then. */
  proposerOf(height: number, round = 0): { set: PrioritizedValidator[]; proposer: PrioritizedValidator } {
    const { since, validators } = this.currentSet();
    if (height <= since)
      throw new RangeError(`height ${height} is not governed by the set in force since block ${since}`);
    return proposerAfter(validators, height - since + round);
  }

  setView(): ValidatorSetView {
    const height = this.chain.head.height;
    const { since, validators } = this.currentSet();
    const epoch = epochBlocks(this.read);
    // Priorities as they stand once the head's own step is taken: the next step (the next block's proposer) starts from them.
    const standing = height > since ? proposerAfter(validators, height - since).set : validators;
    const priority = new Map(standing.map((v) => [v.operator, v.priority]));
    return {
      height,
      epochBlocks: epoch,
      nextChangeAt: (Math.floor(height / epoch) + 1) * epoch,
      totalPower: formatAmountShort(totalPower(validators)),
      nextProposer: proposerAfter(validators, height + 1 - since).proposer.operator,
      validators: validators.map((v) => ({
        operator: v.operator,
        consensusKey: v.consensusKey,
        moniker: this.record(v.operator)?.moniker ?? null,
        power: formatAmountShort(v.power),
        proposerPriority: (priority.get(v.operator) ?? v.priority).toString(),
        // In the set in force, its record may say otherwise already (jailed, unbonding, tombstoned: it leaves at the epoch's end).
        status: this.status(v.operator)?.status ?? 'active',
        genesis: v.operator === this.chain.genesis.validator && v.consensusKey === this.chain.genesis.validatorKey,
      })),
    };
  }

  /** `svc_stakingStatus`: a validator's standing, the genesis validator's too; undefined for an address that is not one. */
  status(operator: string): StakingStatus | undefined {
    const { genesis } = this.chain;
    const record = this.record(operator);
    const isGenesis = operator === genesis.validator;
    if (!record && !isGenesis) return undefined;
    const jailedUntil = readNumber(this.read, jailedKey(operator)) ?? null;
    const tombstonedAt = readNumber(this.read, tombstonedKey(operator)) ?? null;
    const liveness = livenessParams(this.read);
    const standing =
      tombstonedAt !== null ? 'tombstoned' : jailedUntil !== null ? 'jailed' : (record?.status ?? 'active');
    return {
      operator,
      consensusKey: record?.consensusKey ?? genesis.validatorKey,
      moniker: record?.moniker ?? 'genesis',
      stake: formatAmountShort(BigInt(record?.stake ?? 0)),
      status: standing,
      inSet: this.inSet(operator),
      genesis: isGenesis,
      createdAt: record?.createdAt ?? 0,
      joinedAt: record ? (record.joinedAt ?? null) : 0,
      releaseAt: record?.releaseAt ?? null,
      jailedUntil,
      tombstonedAt,
      missedBlocks: readMissed(this.read, operator).length,
      livenessWindow: liveness.window,
      maxMissedBlocks: liveness.maxMissed,
    };
  }

  record(operator: string): ValidatorRecord | undefined {
    return readValidator(this.read, operator);
  }

  records(): ValidatorRecord[] {
    return readOperators(this.read).map((operator) => this.record(operator)!);
  }

  /** Why a consensus key may not propose the block after the head, or undefined. */
  proposerProblem(consensusKey: string): string | undefined {
    const { validators } = this.currentSet();
    if (validators.some((v) => v.consensusKey === consensusKey)) return undefined;
    return validators.length === 1 && validators[0]!.consensusKey === this.chain.genesis.validatorKey
      ? 'proposer is not the chain validator'
      : 'proposer is not in the validator set';
  }

  /** The member using a consensus key, if any. */
  memberByKey(consensusKey: string): PrioritizedValidator | undefined {
    return this.currentSet().validators.find((v) => v.consensusKey === consensusKey);
  }

  /** Whether an operator is in the set in force. */
  inSet(operator: string): boolean {
    return this.currentSet().validators.some((v) => v.operator === operator);
  }
}
