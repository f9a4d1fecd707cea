import type { Receipt, SvcClient } from '../sdk/index.js';
import type { JobCommandContext as CommandContext } from './job-command.js';
import { waitingFor } from './wait-for.js';

/**
 * A transaction a command sent: its hash printed; or, with `--wait`, its receipt awaited — a failed
 * one printed with its error (exit code 1) — and once it succeeded, `show` prints what it changed.
 */
export async function followTransaction<O>(
  ctx: CommandContext<O>,
  client: SvcClient,
  options: O & { wait?: boolean },
  tx: Promise<{ hash: string }>,
  show: (receipt: Receipt) => Promise<void>,
): Promise<void> {
  const { hash } = await tx;
  if (!options.wait) return ctx.print(options, { txHash: hash }, () => hash);
  const receipt = await waitingFor(
    { noun: 'transaction', id: hash, followUp: `svc receipt ${hash}${ctx.urlFlag(options)}` },
    () => client.waitForTransaction(hash),
  );
  if (receipt.status !== 'success') {
    process.exitCode = 1;
    return ctx.print(options, receipt, () => `failed: ${receipt.error?.name}: ${receipt.error?.reason}`);
  }
  await show(receipt);
}
