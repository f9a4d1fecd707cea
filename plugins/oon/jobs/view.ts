import Type, { type Static } from 'typebox';
import { toHex } from '../../../sdk/bytes.js';
import type { JobRecord } from './state.js';
import { sameResult } from './commitment.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Units = Type.String({ description: 'base units, decimal' });
const DeadlineSchema = Type.Object(
  { height: Type.Integer(), time: Type.Integer({ description: 'block time, unix ms' }) },
  { additionalProperties: false, description: 'passed once a block is past both the height and the time' },
);

/** Where a job is: waiting for providers, running, its results in, paid out, failed, or gone unassigned. */
export const JobStatusSchema = Type.Union([
  Type.Literal('queued'),
  Type.Literal('assigned'),
  Type.Literal('committed'),
  Type.Literal('finalized'),
  Type.Literal('failed'),
  Type.Literal('expired'),
]);

export const JobViewSchema = Type.Object(
  {
    jobId: Type.String(),
    status: JobStatusSchema,
    runtime: Type.Union([Type.Literal('wasm'), Type.Literal('evm')]),
    codeCid: Nullable(
      Type.String({ description: 'the CID of the stored object its code is, or null for inline code' }),
    ),
    requester: Type.String(),
    replicas: Type.Integer({ minimum: 1, maximum: 2 }),
    providers: Type.Array(Type.String(), {
      description: 'operators of the current (or, once finalized, the paid) assignments',
    }),
    gasLimit: Units,
    gasPrice: Type.String({ description: 'OMC base units per gas, decimal' }),
    gasUsed: Nullable(Units),
    fee: Nullable(Type.String({ description: 'OMC base units paid to providers, decimal' })),
    escrow: Type.String({
      description:
        'OMC base units held for the job now, decimal: gasLimit × gasPrice × replicas from submission until it settles, then 0',
    }),
    exit: Nullable(Type.String({ description: '"exit:<code>", "out_of_gas" or "trap:<kind>"' })),
    outputHash: Nullable(Type.String({ description: 'sha256 of the output' })),
    output: Nullable(
      Type.String({
        description: 'the output, 0x hex, when small enough to be on chain (GET /oon/jobs/<id>/output serves any size)',
      }),
    ),
    outputSize: Nullable(Type.Integer({ minimum: 0 })),
    reason: Nullable(Type.String({ description: 'why the job waits, or why it failed or expired' })),
    settledBy: Nullable(
      Type.Union([
        Type.Literal('agreement'),
        Type.Literal('unchallenged'),
        Type.Literal('re-execution'),
        Type.Literal('dev'),
      ]),
    ),
    attempts: Type.Integer({ minimum: 0, description: 'assignments that missed their deadline' }),
    missedBy: Type.Array(Type.String(), {
      description: 'providers that missed a deadline of this job: slashed a little, and not assigned it again',
    }),
    submittedAt: Type.Integer({ description: 'block of submission' }),
    assignedAt: Nullable(Type.Integer({ description: 'block of the first assignment (the job clock)' })),
    finalizedAt: Nullable(Type.Integer({ description: 'block that finalized, failed or expired it' })),
    commitBy: Nullable(DeadlineSchema),
    revealBy: Nullable(DeadlineSchema),
    challengeBy: Nullable(DeadlineSchema),
    callback: Nullable(
      Type.Object(
        {
          selector: Type.String({ description: 'the 4-byte selector of the function called back' }),
          gasLimit: Units,
          status: Nullable(
            Type.Union(
              [
                Type.Literal('success'),
                Type.Literal('reverted'),
                Type.Literal('out_of_gas'),
                Type.Literal('failed'),
                Type.Literal('no_code'),
              ],
              { description: 'how the call went; null until the job is over' },
            ),
          ),
          gasUsed: Nullable(Units),
          revert: Nullable(Type.String({ description: 'why it reverted or failed' })),
          calledAt: Nullable(Type.Integer({ description: 'the block it was made in' })),
          hash: Nullable(
            Type.String({
              pattern: '^0x[0-9a-f]{64}$',
              description:
                "the call's system transaction: its receipt and logs by this hash (null until made, and for calls made before the chain rules gave callbacks receipts)",
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'a job submitted by a contract (its requester): the call the chain makes back to it once the job is over, once',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type JobView = Static<typeof JobViewSchema>;

/**
 * The providers a job has: once finalized, the paid ones — those whose result is the job's (a
 * replica whose result lost a re-execution stays among the assignments, slashed, not paid).
 */
function paidOrAssigned(job: JobRecord): string[] {
  const result = job.result;
  if (job.status !== 'finalized' || !result) return job.assignments.map((a) => a.provider);
  return job.assignments.filter((a) => a.reveal && sameResult(a.reveal, result)).map((a) => a.provider);
}

export function jobView(job: JobRecord): JobView {
  const output = job.result?.output;
  const open = job.assignments
    .filter((a) => !a.commitment)
    .map((a) => a.commitBy)
    .sort((a, b) => a.height - b.height);
  return {
    jobId: job.jobId,
    status: job.status,
    runtime: job.runtime,
    codeCid: job.codeCid ?? null,
    requester: job.requester,
    replicas: job.replicas,
    providers: paidOrAssigned(job),
    gasLimit: job.gasLimit,
    gasPrice: job.gasPrice,
    gasUsed: job.result?.gasUsed ?? null,
    fee: job.fee ?? null,
    escrow: job.escrow,
    exit: job.result?.exit ?? null,
    outputHash: job.result?.outputHash ?? null,
    output: output ? toHex(output) : null,
    outputSize: job.result?.outputSize ?? null,
    reason: job.reason ?? null,
    settledBy: job.result?.settledBy ?? null,
    attempts: job.attempts,
    missedBy: [...job.excluded],
    submittedAt: job.submittedAt,
    assignedAt: job.assignedAt ?? null,
    finalizedAt: job.finalizedAt ?? null,
    commitBy: job.status === 'assigned' && open.length > 0 ? open[0]! : null,
    revealBy: job.status === 'committed' ? (job.revealBy ?? null) : null,
    challengeBy: job.status === 'committed' ? (job.challengeBy ?? null) : null,
    callback: job.callback
      ? {
          selector: job.callback.selector,
          gasLimit: job.callback.gasLimit,
          status: job.callback.status ?? null,
          gasUsed: job.callback.gasUsed ?? null,
          revert: job.callback.revert ?? null,
          calledAt: job.callback.calledAt ?? null,
          hash: job.callback.hash ?? null,
        }
      : null,
  };
}
