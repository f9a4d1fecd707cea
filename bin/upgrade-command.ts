import type { CAC } from 'cac';
import type { KeyPair, UpgradePlanView } from '../sdk/index.js';
import { devnetKey } from '../sdk/index.js';
import { integerText, optionText, UsageError } from './cli-args.js';
import { followTransaction } from './follow-transaction.js';
import type { JobCommandContext as CommandContext } from './job-command.js';

type UpgradeOptions = {
  version?: unknown;
  height?: unknown;
  name?: unknown;
  wait?: boolean;
  keyFile?: unknown;
  devAccount?: unknown;
  devValidator?: boolean;
};

function describePlan(plan: UpgradePlanView | null): string {
  if (!plan) return 'no upgrade plan: the chain runs the rules of its schedule (svc rpc svc_chainInfo)';
  const state = plan.adopted
    ? `adopted at block ${plan.adoptedAt}`
    : `pending: ${plan.approvedStake} of ${plan.bondedStake} OGT approve (adopted past 2/3 before block ${plan.height})`;
  return [
    `plan ${plan.planId} "${plan.name}": chain rules version ${plan.version} from block ${plan.height}, ${state}`,
    `proposed by    ${plan.proposer} at block ${plan.proposedAt}`,
    `approvals      ${plan.approvals.join(', ')}`,
  ].join('\n');
}

/** The signer of an upgrade transaction: a validator's operator key (`--key-file`), or the devnet's validator. */
function validatorSigner<O>(ctx: CommandContext<O>, options: O & UpgradeOptions): KeyPair {
  if (!options.devValidator) return ctx.signer(options);
  if (options.keyFile !== undefined || options.devAccount !== undefined)
    throw new UsageError('give one signer: --dev-validator, --key-file or --dev-account');
  return devnetKey('validator', 0);
}

/** `svc upgrade propose|approve|plan`. */
export function addUpgradeCommand<O extends object>(cli: CAC, ctx: CommandContext<O & UpgradeOptions>): void {
  cli
    .command(
      'upgrade <action> [planId]',
      'upgrade plans: `upgrade propose --version <v> --height <h> [--name <n>]`, `upgrade approve <planId>`, `upgrade plan`',
    )
    .option('--version <v>', 'propose: the chain-rules version to run')
    .option('--height <h>', 'propose: the first block to run it (the plan must be adopted before)')
    .option('--name <name>', 'propose: a label (default v<version>)')
    .option('--key-file <file>', "propose/approve: the validator's operator key file")
    .option('--dev-account <index>', 'propose/approve: sign with a devnet dev account (0-9) that staked as a validator')
    .option('--dev-validator', "propose/approve: sign with the devnet's validator key (a devnet's lone validator)")
    .option('--wait', 'propose/approve: wait until the transaction is mined, then show the plan')
    .action(async (action: string, planId: string | undefined, options: O & UpgradeOptions) => {
      const c = ctx.client(options);
      const send = (tx: Promise<{ hash: string }>): Promise<void> =>
        followTransaction(ctx, c, options, tx, async () => {
          const plan = await c.getUpgradePlan();
          ctx.print(options, plan, () => describePlan(plan));
        });
      if (action === 'propose') {
        if (planId !== undefined) throw new UsageError('upgrade propose takes no planId: --version and --height');
        const version = integerText(options.version, '--version', 1, 2 ** 31 - 1);
        const height = integerText(options.height, '--height', 1);
        const name = optionText(options.name, '--name');
        const key = validatorSigner(ctx, options);
        return send(c.proposeUpgrade(key, { version, height, ...(name === undefined ? {} : { name }) }));
      }
      if (action === 'approve') {
        if (planId === undefined) throw new UsageError('upgrade approve <planId> (svc upgrade plan shows it)');
        const key = validatorSigner(ctx, options);
        return send(c.approveUpgrade(key, integerText(planId, 'planId', 1)));
      }
      if (action === 'plan') {
        const plan = await c.getUpgradePlan();
        return ctx.print(options, plan, () => describePlan(plan));
      }
      throw new UsageError(`unknown upgrade action "${action}" (expected one of propose, approve, plan)`);
    });
}
