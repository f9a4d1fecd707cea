import { formatAmountShort } from '../../sdk/amount.js';
import type { ChainReader } from '../../chain/capabilities.js';
import { proposerAfter, totalPower, type PrioritizedValidator } from '../../consensus/validator-set.js';
import { genesisSet } from './end-block.js';
import { epochBlocks } from './params.js';
import { readOperators, readSet, readValidator, type ValidatorRecord } from './state.js';
import type { ValidatorSetView } from '../../sdk/views.js';

/** The staking rules' service on every node: the validator set in force at the head, and who proposes. */
export class StakingService {
  constructor(readonly chain: ChainReader) {}

  private read = (key: string): Uint8Array | undefined => this.chain.state.get(key);

  /** The set in force at the head and the epoch end it took over at. */
  currentSet(): { since: number; validators: PrioritizedValidator[] } {
    return readSet(this.read) ?? genesisSet(this.chain.genesis);
  }

  /** The proposer of `height` (after the set's epoch end) in `round`, and the set's priorities then. */
  proposerOf(height: number, round = 0): { set: PrioritizedValidator[]; proposer: PrioritizedValidator } {
    const { since, validators } = this.currentSet();
    if (height <= since) throw new RangeError(`height ${height} is not governed by the set in force since block ${since}`);
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
        genesis: v.operator === this.chain.genesis.validator && v.consensusKey === this.chain.genesis.validatorKey,
      })),
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
    return validators.length === 1 && validators[0]!.consensusKey === this.chain.genesis.validatorKey ? 'proposer is not the chain validator' : 'proposer is not in the validator set';
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
