import Type, { type Static } from 'typebox';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex, toHex, utf8 } from '../../../sdk/bytes.js';
import type { TxContext, TxKind, TxKindFactory } from '../../../chain/contract.js';
import { devKindGuards, type DevRefusal } from '../../../chain/dev-kinds.js';
import type { ProviderKind } from '../../providers/registry.js';
import type { OonService } from '../service.js';
import { finalize, isOver, refund, releaseSlots, settleByReexecution } from './end-block.js';
import { JOB_PARAMS } from './params.js';
import { addLoad, appendIndexed, dequeue, readJob, TOUCHED_INDEX, writeJob } from './state.js';

export const DEV_JOB_KIND = 'oon.dev';
/** The rules version from which dev mode's job controls exist. */
export const DEV_JOB_CONTROLS_SINCE = 7;

export const DevJobPayload = Type.Object(
  {
    jobId: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'the job' }),
    action: Type.Union([Type.Literal('settle'), Type.Literal('fail'), Type.Literal('expire'), Type.Literal('lie')], {
      description:
        'settle: finalized now with `output`; fail / expire: ended so, refunded; lie: its provider reports a wrong result, and the chain re-executes the job to settle it',
    }),
    output: Type.Optional(
      Type.String({
        pattern: '^0x([0-9a-fA-F]{2})*$',
        maxLength: 2 + 2 * JOB_PARAMS.maxInlineOutput,
        description: 'settle: the output the job settles with',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DevJobAction = Static<typeof DevJobPayload>;

/** What a provider that lies reports: a result no run gives. */
const LIE: { outputHash: string; exit: string; gasUsed: string; outputSize: number } = {
  outputHash: toHex(sha256(utf8('svc-node dev mode: a provider that lies'))),
  exit: 'exit:0',
  gasUsed: '1',
  outputSize: 0,
};

/** Why the action cannot be taken on the job as the state holds it, or undefined. */
const refusal: DevRefusal<DevJobAction> = (payload, read) => {
  const job = readJob(read, payload.jobId);
  if (!job) return { error: 'not_found', reason: `no job ${payload.jobId}` };
  if (isOver(job)) return { error: 'invalid_params', reason: `job ${job.jobId} is ${job.status} already` };
  if (payload.action === 'settle' && payload.output === undefined)
    return { error: 'invalid_params', reason: 'settle takes the output the job settles with' };
  if (payload.action !== 'settle' && payload.output !== undefined)
    return { error: 'invalid_params', reason: `${payload.action} takes no output` };
  if (payload.action === 'lie' && job.assignments.length === 0)
    return {
      error: 'invalid_params',
      reason: `job ${job.jobId} is ${job.status}: no provider holds it yet, so none can lie about it`,
    };
  return undefined;
};
const guards = devKindGuards(DEV_JOB_KIND, refusal);

/**
 * Applies a dev-mode action to a job through the paths the chain's own steps take, so the callback,
 * the payments and the slashing are the ones a real outcome gets: `refund` for a failure or an
 * expiry, `finalize` for a settlement (nobody is paid: no provider ran it), and for a lie the
 * provider's reveal replaced by a wrong result, then the re-execution that settles a dispute.
 */
async function applyDevAction(ctx: TxContext<DevJobAction>, kind: ProviderKind, service: OonService): Promise<void> {
  const read = (key: string): Uint8Array | undefined => ctx.readState(key);
  const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
  const { payload } = ctx;
  guards.check(payload, read);
  const job = readJob(read, payload.jobId);
  dequeue(read, write, job!);
  if (payload.action === 'fail' || payload.action === 'expire') {
    const done = payload.action === 'fail' ? 'failed' : 'expired';
    refund(
      ctx,
      job!,
      done,
      `${done} by dev mode's svc_dev${payload.action === 'fail' ? 'Fail' : 'Expire'}Job`,
      read,
      write,
    );
  } else if (payload.action === 'settle') {
    const output = fromHex(payload.output!);
    releaseSlots(read, write, job!.assignments);
    job!.assignments = [];
    finalize(
      ctx,
      job!,
      [],
      { outputHash: toHex(sha256(output)), exit: 'exit:0', gasUsed: '0', outputSize: output.length, output },
      'dev',
    );
  } else {
    const liar = job!.assignments[0]!;
    // The run is over for it, as a commitment would say: its slot is free.
    if (!liar.commitment) addLoad(read, write, liar.provider, -1);
    liar.commitment ??= 'dev';
    liar.reveal = LIE;
    job!.status = 'committed';
    await settleByReexecution({ ctx, kind, reexecute: (spec) => service.run(spec), read, write }, job!);
  }
  writeJob(write, job!);
  // The end of the block lists it among the jobs this block changed.
  appendIndexed(read, write, TOUCHED_INDEX, job!.jobId);
}

/**
 * Dev mode's job controls (`svc_devSettleJob`, `svc_devFailJob`, `svc_devExpireJob`,
 * `svc_devLieJob`) as a transaction kind, so they are in blocks and a follower replays them: valid
 * only on the devnet and signed by its validator, admitted only by a node in dev mode.
 */
export function devJobKind(factory: TxKindFactory<OonService>, kind: ProviderKind): TxKind {
  return factory({
    kind: DEV_JOB_KIND,
    summary:
      "dev mode: settles a job now with an output, fails or expires it, or makes its provider lie (signed by the devnet's validator)",
    payload: DevJobPayload,
    sinceRulesVersion: DEV_JOB_CONTROLS_SINCE,
    authorize: guards.authorize,
    admit: guards.admit,
    execute: (ctx, service) => applyDevAction(ctx, kind, service),
  });
}
