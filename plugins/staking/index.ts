import { definePlugin } from '../../kernel/plugin.js';
import { stakingEndBlock } from './end-block.js';
import { stakingGenesis } from './params.js';
import { genesisValidatorEntries } from './genesis-validators.js';
import { stakingMethods } from './rpc.js';
import { StakingService } from './service.js';
import { stakingFinality } from './finality.js';
import { stakingTxKinds } from './tx-kinds.js';
import { stakingExportGenesis } from './export-genesis.js';
import { STAKING_ERRORS } from './errors.js';
import type {} from '../metrics/gauges.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    staking: StakingService;
  }
}

/**
 * Staking as chain rules, on every node: validators join by staking 15 to 28 OGT
 * (`staking.createValidator`), add stake, and unbond; the set, with stake as voting power and CometBFT's
 * proposer priorities, changes only at the end of an epoch. The genesis validator is in the set
 * without a stake, so a devnet starts with it alone; a genesis file may name more validators, in the
 * set from block 1 (`"validators"`, as `svc-node init --validators N` writes).
 */
export default definePlugin({
  name: 'staking',
  errors: STAKING_ERRORS,
  version: '1.0.0',
  description:
    'staking chain rules on every node: staking.createValidator / addStake / unbond, the validator set by epoch with stake-weighted proposer priorities; svc_validators, svc_stakingStatus',
  requires: ['chain-reader', 'consensus-rules'],
  init: (ctx) => {
    const service = new StakingService(ctx.use('chain-reader'));
    // A block's proposer must be in the set in force after the head (the set a block's parent state names).
    ctx.use('consensus-rules').setProposerCheck((block) => service.proposerProblem(block.proposerKey));
    // A block is final with precommits of more than 2/3 of its set's power: the chain checks every certificate by these rules.
    ctx.use('consensus-rules').setFinalityRules(stakingFinality(service));
    return service;
  },
  txKinds: (kind) => stakingTxKinds(kind),
  endBlock: (ctx, service) => stakingEndBlock(ctx, service.chain.genesis),
  genesis: (parameters) => [...stakingGenesis(parameters), ...genesisValidatorEntries(parameters)],
  exportGenesis: (state, from) => stakingExportGenesis(state, from),
  rpc: (method) => stakingMethods(method),
  gauges: (service) => [
    {
      name: 'svc_staking_missed_blocks',
      help: "certificates within the liveness window missing a validator's precommit, by validator in the set",
      labelNames: ['validator'],
      collect: (set) => {
        for (const { operator } of service.currentSet().validators)
          set(service.status(operator)?.missedBlocks ?? 0, { validator: operator });
      },
    },
  ],
});
