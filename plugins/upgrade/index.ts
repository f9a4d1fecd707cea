import { definePlugin } from '../../kernel/plugin.js';
import { knowsRulesVersion, knownRulesVersions } from '../../chain/rules-version.js';
import { upgradeEndBlock } from './end-block.js';
import { UPGRADE_ERRORS } from './errors.js';
import { upgradeMethods } from './rpc.js';
import { UpgradeService } from './service.js';
import { readAdopted } from './state.js';
import { upgradeTxKinds } from './tx-kinds.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    upgrade: UpgradeService;
  }
}

/**
 * Upgrade plans as chain rules, on every node: a validator proposes a rules version and the block it
 * starts at (`upgrade.propose`), validators approve (`upgrade.approve`), and the plan is adopted once
 * approvals hold more than 2/3 of the set's power before that block — its version joins the chain's
 * schedule (the chain names this plugin its state delegate for it). A lone validator's proposal is
 * adopted at the end of its block. `svc_getUpgradePlan`.
 */
export default definePlugin({
  name: 'upgrade',
  errors: UPGRADE_ERRORS,
  version: '1.0.0',
  description:
    'upgrade plans as chain rules on every node: upgrade.propose / upgrade.approve, adopted by more than 2/3 of the validator power before their height; svc_getUpgradePlan',
  requires: ['chain-reader', 'staking'],
  init: (ctx) => {
    const chain = ctx.use('chain-reader');
    const service = new UpgradeService(ctx.use('staking'), chain);
    // Say once when a block adopts a plan, and warn early when this release will stop at its height.
    let known = readAdopted((key) => chain.state.get(key))?.planId;
    ctx.events.on('chain:block', () => {
      const adopted = readAdopted((key) => chain.state.get(key));
      if (!adopted || adopted.planId === known) return;
      known = adopted.planId;
      const fields = { planId: adopted.planId, version: adopted.version, height: adopted.height };
      ctx.log.info(
        fields,
        `upgrade plan ${adopted.planId} adopted: chain rules version ${adopted.version} from block ${adopted.height}`,
      );
      if (!knowsRulesVersion(adopted.version))
        ctx.log.warn(
          fields,
          `this release does not implement chain rules version ${adopted.version} (it implements ${knownRulesVersions()}): it will stop before block ${adopted.height}; install a release that does before then`,
        );
    });
    return service;
  },
  txKinds: (kind) => upgradeTxKinds(kind),
  endBlock: (ctx, service) => upgradeEndBlock(ctx, service.sets),
  rpc: (method) => upgradeMethods(method),
  // Plans are a network's own: a network made from an export starts with none (its schedule starts anew too).
  exportGenesis: (state) => {
    for (const key of [...state.keys()]) if (key.startsWith('upgrade/')) state.delete(key);
  },
});
