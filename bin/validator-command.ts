import type { CAC } from 'cac';
import type { StakingStatus, ValidatorSetView } from '../sdk/index.js';
import { amountOption, optionText, UsageError } from './cli-args.js';
import { followTransaction } from './follow-transaction.js';
import type { JobCommandContext as CommandContext } from './job-command.js';

type ValidatorOptions = {
  stake?: unknown;
  moniker?: unknown;
  consensusKey?: unknown;
  amount?: unknown;
  wait?: boolean;
  keyFile?: unknown;
  devAccount?: unknown;
};

function describeStatus(status: StakingStatus): string {
  const when =
    status.status === 'unbonding'
      ? `, stake returns at block ${status.releaseAt}`
      : status.status === 'pending'
        ? ', in the set from the next epoch'
        : status.status === 'jailed'
          ? `, may unjail from block ${status.jailedUntil} (\`svc validator unjail\`)`
          : status.status === 'tombstoned'
            ? `, double-signed: slashed and removed for good at block ${status.tombstonedAt}`
            : '';
  return [
    `validator ${status.operator}: ${status.status}${when}`,
    `moniker        ${status.moniker}`,
    `stake          ${status.stake} OGT${status.genesis ? ' (the genesis validator: in the set without a stake)' : ''}`,
    `in the set     ${status.inSet ? 'yes' : 'no'}`,
    `missed blocks  ${status.missedBlocks} of the last ${status.livenessWindow} (jailed past ${status.maxMissedBlocks})`,
    `consensus key  ${status.consensusKey}`,
  ].join('\n');
}

function describeSet(set: ValidatorSetView): string {
  const rows = set.validators.map((v) =>
    `${v.operator}  ${v.power} OGT  ${v.status}  priority ${v.proposerPriority}  ${v.moniker ?? (v.genesis ? '(genesis)' : '')}`.trimEnd(),
  );
  return [
    `${set.validators.length} validator(s), ${set.totalPower} OGT of power at block ${set.height}; next proposer ${set.nextProposer}; the set next changes at block ${set.nextChangeAt}`,
    ...rows,
  ].join('\n');
}

/** `svc validator create|add-stake|unbond|status|list`. */
export function addValidatorCommand<O extends object>(cli: CAC, ctx: CommandContext<O & ValidatorOptions>): void {
  cli
    .command(
      'validator <action> [address]',
      'staking: `validator create --stake <OGT>`, `validator add-stake --amount <OGT>`, `validator unbond`, `validator unjail`, `validator status [address]`, `validator list`',
    )
    .option('--stake <OGT>', 'create: the stake, 15 to 28 OGT')
    .option('--moniker <name>', "create: the validator's name (default: the start of its address)")
    .option(
      '--consensus-key <hex>',
      "create: the 0x public key it signs blocks and votes with (default: the signer's own)",
    )
    .option('--amount <OGT>', 'add-stake: OGT to add (the stake stays at most 28 OGT)')
    .option('--key-file <file>', 'create/add-stake/unbond/unjail: the operator key file')
    .option('--dev-account <index>', 'create/add-stake/unbond/unjail: sign with a devnet dev account (0-9)')
    .option('--wait', 'create/add-stake/unbond/unjail: wait until the transaction is mined')
    .action(async (action: string, address: string | undefined, options: O & ValidatorOptions) => {
      const c = ctx.client(options);
      const send = (tx: Promise<{ hash: string }>, operator: string): Promise<void> =>
        followTransaction(ctx, c, options, tx, async (receipt) => {
          const status = await c.stakingStatus(operator).catch(() => undefined);
          ctx.print(options, status ?? receipt, () =>
            status ? describeStatus(status) : `${operator}: stake returned`,
          );
        });
      if (action === 'create') {
        const key = ctx.signer(options);
        const stake = amountOption(options.stake, '--stake', 'OGT');
        const consensusKey = optionText(options.consensusKey, '--consensus-key');
        if (consensusKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(consensusKey))
          throw new UsageError(`--consensus-key: expected 0x and 64 hex characters, got "${consensusKey}"`);
        const moniker = optionText(options.moniker, '--moniker') ?? key.address.slice(0, 12);
        return send(c.createValidator(key, { stake, moniker, ...(consensusKey ? { consensusKey } : {}) }), key.address);
      }
      if (action === 'add-stake') {
        const key = ctx.signer(options);
        return send(c.addStake(key, amountOption(options.amount, '--amount', 'OGT')), key.address);
      }
      if (action === 'unbond') {
        const key = ctx.signer(options);
        return send(c.unbondValidator(key), key.address);
      }
      if (action === 'unjail') {
        const key = ctx.signer(options);
        return send(c.unjailValidator(key), key.address);
      }
      if (action === 'status') {
        const who =
          address ??
          (options.keyFile !== undefined || options.devAccount !== undefined ? ctx.signer(options).address : undefined);
        if (!who)
          throw new UsageError("validator status <address> (or --key-file / --dev-account for the signer's own)");
        const status = await c.stakingStatus(who);
        return ctx.print(options, status, () => describeStatus(status));
      }
      if (action === 'list') {
        const set = await c.validators();
        return ctx.print(options, set, () => describeSet(set));
      }
      throw new UsageError(
        `unknown validator action "${action}" (expected one of create, add-stake, unbond, unjail, status, list)`,
      );
    });
}
