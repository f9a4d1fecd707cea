import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { sha256 } from '@noble/hashes/sha2.js';
import { formatAmountShort } from '../../../sdk/amount.js';
import { fromHex, toHex, utf8 } from '../../../sdk/bytes.js';
import {
  TxFailure,
  type BlockContext,
  type PayloadProblem,
  type TxContext,
  type TxKind,
  type TxKindFactory,
} from '../../../chain/contract.js';
import { resultCommitment, type ReportedResult } from './commitment.js';
import { deadlineAfter, describeDeadline, isPast, JOB_PARAMS } from './params.js';
import {
  addLoad,
  ALL_INDEX,
  appendIndexed,
  codeKey,
  INCOMING_INDEX,
  readJob,
  requesterIndex,
  TOUCHED_INDEX,
  writeJob,
  type JobRecord,
} from './state.js';
import { checkJobCode } from './validate.js';
import type { OmpDeals } from '../../omp/deals/capability.js';
import type { OonService } from '../service.js';
import { canonicalCid, codeCidKey, codeDeal } from './code.js';
import { cidOfBytes } from '../../../objects/small-cid.js';
import type { Address } from '../../../sdk/address.js';

const Units = Type.String({
  pattern: '^[1-9][0-9]{0,77}$',
  description: 'a positive whole number of base units, decimal',
});
const hexBytes = (max: number, description: string) =>
  Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 2 + 2 * max, description });
const Hash = Type.String({ pattern: '^0x[0-9a-f]{64}$' });
const JobId = Type.String({
  pattern: '^0x[0-9a-f]{64}$',
  description: 'the job id: the hash of the transaction that submitted it',
});

export const SubmitJobPayload = Type.Object(
  {
    runtime: Type.Union([Type.Literal('wasm'), Type.Literal('evm')]),
    code: Type.Optional(
      hexBytes(JOB_PARAMS.maxCodeBytes, 'the WASI module or the EVM runtime bytecode, inline (or codeCid)'),
    ),
    codeCid: Type.Optional(
      Type.String({
        minLength: 10,
        maxLength: 128,
        description:
          'the CID of a stored object with an active deal: the WASI module, or the EVM bytecode as hex text (or code)',
      }),
    ),
    input: hexBytes(JOB_PARAMS.maxInputBytes, 'stdin of a WASM job, calldata of an EVM job'),
    args: Type.Array(Type.String({ maxLength: JOB_PARAMS.maxArgBytes }), { maxItems: JOB_PARAMS.maxArgs }),
    gasLimit: Units,
    gasPrice: Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$', description: 'OMC base units per gas, decimal' }),
    replicas: Type.Union([Type.Literal(1), Type.Literal(2)]),
  },
  { additionalProperties: false },
);
export type SubmitJob = Static<typeof SubmitJobPayload>;

/** Schema keywords that are a job's limits (sizes, counts): a job over one is `job_rejected`. */
const LIMIT_KEYWORDS = new Set(['maxLength', 'maxItems', 'maximum', 'maxProperties']);

/**
 * How a job whose fields fail their schema is refused, the same on every method that takes one
 * (svc_oonSubmitJob, svc_sendRawTransaction, svc_oonEstimate): over a limit, `job_rejected` with the
 * field in `data.limit`; any other fault, `invalid_params` with `data.field`.
 */
export function jobPayloadRefusal(problem: PayloadProblem): {
  error: 'job_rejected' | 'invalid_params';
  data?: Record<string, unknown>;
} {
  return LIMIT_KEYWORDS.has(problem.keyword)
    ? { error: 'job_rejected', data: { limit: problem.field } }
    : { error: 'invalid_params' };
}

/** The limits of a job's code, input and args, for methods whose params schema leaves them out to refuse them as jobs are. */
const JobLimits = Compile(
  Type.Object({
    code: SubmitJobPayload.properties.code,
    input: Type.Optional(SubmitJobPayload.properties.input),
    args: Type.Optional(SubmitJobPayload.properties.args),
  }),
);

/** A job's fields over their limits, refused as a submission would be; undefined when within them. */
export function jobLimitProblem(job: { code?: string; input?: string; args?: string[] }): PayloadProblem | undefined {
  if (JobLimits.Check(job)) return undefined;
  const error = JobLimits.Errors(job)[0] as { instancePath?: string; message?: string; keyword?: string } | undefined;
  const field = error?.instancePath?.slice(1).replace(/\//g, '.') || 'job';
  return { field, keyword: error?.keyword ?? '', reason: `${field} ${error?.message ?? 'is over its limit'}` };
}

const ResultFields = {
  outputHash: Hash,
  exit: Type.String({ pattern: '^(exit:[0-9]{1,10}|out_of_gas|trap:[a-z ]{1,64})$' }),
  gasUsed: Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$' }),
  outputSize: Type.Integer({ minimum: 0, maximum: JOB_PARAMS.limits.maxOutputBytes }),
};
const CommitPayload = Type.Object({ jobId: JobId, commitment: Hash }, { additionalProperties: false });
const RevealPayload = Type.Object(
  {
    jobId: JobId,
    ...ResultFields,
    salt: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
    output: Type.Optional(
      hexBytes(JOB_PARAMS.maxInlineOutput, 'the output, when it is small enough to travel on chain'),
    ),
  },
  { additionalProperties: false },
);
/** Items per list of one `oon.reportResults`: what a provider finishes in a block or two, well inside a transaction's 1 MiB. */
export const MAX_REPORT_ITEMS = 32;
const ReportPayload = Type.Object(
  {
    commits: Type.Array(CommitPayload, {
      maxItems: MAX_REPORT_ITEMS,
      description: 'commitments, applied in order before the reveals',
    }),
    reveals: Type.Array(RevealPayload, {
      maxItems: MAX_REPORT_ITEMS,
      description: 'reveals, applied in order after the commitments',
    }),
  },
  { additionalProperties: false },
);
const ChallengePayload = Type.Object({ jobId: JobId }, { additionalProperties: false });
const SupplyCodePayload = Type.Object(
  { jobId: JobId, code: hexBytes(JOB_PARAMS.maxCodeBytesByCid, "the bytes of the object the job's codeCid names") },
  { additionalProperties: false },
);

/** Exactly one of inline code and a CID; a CID job's code is checked when it runs (refused code gives a `trap:code refused` result). */
export function checkSubmission(payload: SubmitJob): void {
  if ((payload.code === undefined) === (payload.codeCid === undefined))
    throw new TxFailure(
      'invalid_params',
      'a job gives its code inline (code) or by the CID of a stored object (codeCid): one of the two',
    );
  if (payload.code !== undefined) checkJobCode(payload.runtime, fromHex(payload.code), BigInt(payload.gasLimit));
  else {
    canonicalCid(payload.codeCid!);
    const ceiling = JOB_PARAMS.maxGas[payload.runtime];
    if (BigInt(payload.gasLimit) > ceiling)
      throw new TxFailure(
        'job_rejected',
        `gasLimit ${payload.gasLimit} is over the ${payload.runtime} ceiling of ${ceiling}`,
      );
  }
}

/** What a job escrows: its whole gas limit at its price, once per replica. */
export const jobEscrow = (job: Pick<SubmitJob, 'gasLimit' | 'gasPrice' | 'replicas'>): bigint =>
  BigInt(job.gasLimit) * BigInt(job.gasPrice) * BigInt(job.replicas);

/** A contract's request to be called back when its job is over: the function, the gas it may use, and the OMC held for that gas. */
export interface CallbackRequest {
  readonly selector: string;
  readonly gasLimit: bigint;
}

/**
 * Creates a job: the one path of a signed `oon.submitJob` and of a contract's call to the OON
 * precompile. Escrows the job's gas (and its callback's, at the job's gas price) from the requester.
 */
export function createJob(
  ctx: BlockContext,
  deals: OmpDeals,
  requester: Address,
  jobId: string,
  payload: SubmitJob,
  callback?: CallbackRequest,
): JobRecord {
  checkSubmission(payload);
  if (readJob(reader(ctx), jobId)) throw new TxFailure('invalid_params', `job ${jobId} exists already`);
  let code: { codeHash: string } | { codeCid: string };
  let codeSize: number;
  if (payload.code !== undefined) {
    const bytes = fromHex(payload.code);
    code = { codeHash: toHex(sha256(bytes)) };
    codeSize = bytes.length;
    if (!ctx.readState(codeKey(code.codeHash))) ctx.writeState(codeKey(code.codeHash), bytes);
  } else {
    const cid = canonicalCid(payload.codeCid!);
    codeSize = codeDeal(reader(ctx), deals, cid).size;
    code = { codeCid: cid };
  }
  const reserve = callback ? callback.gasLimit * BigInt(payload.gasPrice) : 0n;
  const escrow = jobEscrow(payload) + reserve;
  ctx.debit(requester, 'OMC', escrow);
  const job: JobRecord = {
    jobId,
    requester,
    runtime: payload.runtime,
    ...code,
    codeSize,
    input: fromHex(payload.input),
    args: payload.args,
    gasLimit: payload.gasLimit,
    gasPrice: payload.gasPrice,
    replicas: payload.replicas,
    escrow: escrow.toString(),
    status: 'queued',
    reason: 'waiting for the end of the block to be assigned',
    submittedAt: ctx.height,
    submittedTime: ctx.timestamp,
    attempts: 0,
    assignments: [],
    excluded: [],
    ...(callback
      ? {
          callback: {
            selector: callback.selector,
            gasLimit: callback.gasLimit.toString(),
            reserve: reserve.toString(),
          },
        }
      : {}),
  };
  writeJob(writer(ctx), job);
  for (const index of [INCOMING_INDEX, ALL_INDEX, requesterIndex(job.requester)])
    appendIndexed(reader(ctx), writer(ctx), index, job.jobId);
  return job;
}

const reader = (ctx: BlockContext) => (key: string) => ctx.readState(key);
const writer = (ctx: BlockContext) => (key: string, value: Uint8Array | undefined) => ctx.writeState(key, value);

function jobOf(ctx: TxContext<unknown>, jobId: string): JobRecord {
  const job = readJob(reader(ctx), jobId);
  if (!job) throw new TxFailure('not_found', `no job ${jobId}`);
  return job;
}

/** The sender's commitment to its result of a job it holds an open assignment of; frees its slot. */
function commitResult(ctx: TxContext<unknown>, item: Static<typeof CommitPayload>): void {
  const job = jobOf(ctx, item.jobId);
  const assignment = job.assignments.find((a) => a.provider === ctx.tx.from);
  if (!assignment || job.status !== 'assigned')
    throw new TxFailure(
      'invalid_params',
      `${ctx.tx.from} holds no open assignment of job ${job.jobId} (status ${job.status})`,
    );
  if (assignment.commitment)
    throw new TxFailure('invalid_params', `${ctx.tx.from} already committed to job ${job.jobId}`);
  if (isPast(ctx, assignment.commitBy))
    throw new TxFailure(
      'invalid_params',
      `the commit deadline of job ${job.jobId} was ${describeDeadline(assignment.commitBy)}`,
    );
  assignment.commitment = item.commitment;
  assignment.committedAt = ctx.height;
  // The run is over: its slot is free for the next job.
  addLoad(reader(ctx), writer(ctx), ctx.tx.from, -1);
  if (job.assignments.length === job.replicas && job.assignments.every((a) => a.commitment)) {
    job.status = 'committed';
    job.revealBy = deadlineAfter(ctx, JOB_PARAMS.revealWindow);
    job.reason = undefined;
    // Its status changed: the end of the block lists it among the changed jobs, and schedules its
    // reveal deadline unless every reveal is in by then (a single replica reports both at once).
    appendIndexed(reader(ctx), writer(ctx), TOUCHED_INDEX, job.jobId);
  }
  writeJob(writer(ctx), job);
}

/** The sender opens its commitment on a job every replica has committed to. */
function revealResult(ctx: TxContext<unknown>, item: Static<typeof RevealPayload>): void {
  const job = jobOf(ctx, item.jobId);
  const assignment = job.assignments.find((a) => a.provider === ctx.tx.from);
  if (!assignment?.commitment)
    throw new TxFailure('invalid_params', `${ctx.tx.from} has no commitment on job ${job.jobId}`);
  if (job.status !== 'committed')
    throw new TxFailure(
      'invalid_params',
      `job ${job.jobId} is ${job.status}: reveals open once every replica has committed`,
    );
  if (assignment.reveal) throw new TxFailure('invalid_params', `${ctx.tx.from} already revealed on job ${job.jobId}`);
  const result: ReportedResult = {
    outputHash: item.outputHash,
    exit: item.exit,
    gasUsed: item.gasUsed,
    outputSize: item.outputSize,
  };
  if (resultCommitment(job.jobId, ctx.tx.from, result, item.salt) !== assignment.commitment) {
    throw new TxFailure('invalid_params', `the reveal does not open ${ctx.tx.from}'s commitment on job ${job.jobId}`);
  }
  if (BigInt(result.gasUsed) > BigInt(job.gasLimit))
    throw new TxFailure('invalid_params', `gasUsed ${result.gasUsed} is over the job's limit ${job.gasLimit}`);
  let output: Uint8Array | undefined;
  if (item.output !== undefined) {
    output = fromHex(item.output);
    if (output.length !== result.outputSize || toHex(sha256(output)) !== result.outputHash)
      throw new TxFailure('invalid_params', `the revealed output of job ${job.jobId} does not match its size and hash`);
  } else if (result.outputSize <= JOB_PARAMS.maxInlineOutput) {
    throw new TxFailure(
      'invalid_params',
      `an output of ${result.outputSize} bytes travels in the reveal (up to ${JOB_PARAMS.maxInlineOutput}); job ${job.jobId}`,
    );
  }
  assignment.reveal = { ...result, ...(output ? { output } : {}) };
  assignment.revealedAt = ctx.height;
  writeJob(writer(ctx), job);
  appendIndexed(reader(ctx), writer(ctx), TOUCHED_INDEX, job.jobId);
}

/** A report names each job at most once per list, and carries something. */
function checkReport(payload: Static<typeof ReportPayload>): void {
  if (payload.commits.length + payload.reveals.length === 0)
    throw new TxFailure('invalid_params', 'a report carries at least one commitment or reveal');
  for (const list of [payload.commits, payload.reveals]) {
    const seen = new Set<string>();
    for (const { jobId } of list) {
      if (seen.has(jobId))
        throw new TxFailure('invalid_params', `job ${jobId} appears twice in one list of the report`);
      seen.add(jobId);
    }
  }
}

/** `oon.submitJob`, `oon.commitResult`, `oon.revealResult`, `oon.reportResults`, `oon.challenge`, `oon.supplyCode`. */
export function jobTxKinds(factory: TxKindFactory<OonService>): TxKind[] {
  return [
    factory({
      kind: 'oon.submitJob',
      summary:
        "submits a compute job, escrowing gasLimit × gasPrice × replicas OMC; the job id is this transaction's hash",
      payload: SubmitJobPayload,
      payloadRefusal: jobPayloadRefusal,
      debits: (payload) => [{ asset: 'OMC', amount: jobEscrow(payload) }],
      admit: (payload, service) => {
        checkSubmission(payload);
        // At the head too, so a submission naming code no deal keeps is refused, not mined as a failure.
        if (payload.codeCid !== undefined)
          codeDeal((key) => service.chain.state.get(key), service.deals, canonicalCid(payload.codeCid));
      },
      execute: (ctx, service) => {
        createJob(ctx, service.deals, ctx.tx.from, ctx.tx.hash, ctx.payload);
      },
    }),
    factory({
      kind: 'oon.commitResult',
      summary:
        'an assigned provider commits to its result (a hash binding the job, its address, the result and a secret salt)',
      payload: CommitPayload,
      execute: (ctx) => commitResult(ctx, ctx.payload),
    }),
    factory({
      kind: 'oon.revealResult',
      summary:
        'a provider opens its commitment once every replica has committed: output hash, exit, gas used, salt (and the output when small)',
      payload: RevealPayload,
      execute: (ctx) => revealResult(ctx, ctx.payload),
    }),
    factory({
      kind: 'oon.reportResults',
      summary: `a provider's commitments and reveals of several jobs in one transaction (up to ${MAX_REPORT_ITEMS} of each): the commitments first, then the reveals, each under the rules of oon.commitResult and oon.revealResult, so a single-replica job may be committed and revealed in one report; one that fails fails the whole report`,
      payload: ReportPayload,
      admit: (payload) => checkReport(payload),
      execute(ctx) {
        checkReport(ctx.payload);
        for (const item of ctx.payload.commits) commitResult(ctx, item);
        for (const item of ctx.payload.reveals) revealResult(ctx, item);
      },
    }),
    factory({
      kind: 'oon.challenge',
      summary: `disputes a single replica's revealed result inside the challenge window, depositing ${formatAmountShort(JOB_PARAMS.challengeDeposit)} OMC; the chain re-executes the job to settle it`,
      payload: ChallengePayload,
      debits: () => [{ asset: 'OMC', amount: JOB_PARAMS.challengeDeposit }],
      execute(ctx) {
        const job = jobOf(ctx, ctx.payload.jobId);
        if (job.challengeBy === undefined || job.status !== 'committed')
          throw new TxFailure(
            'invalid_params',
            `job ${job.jobId} has no result open to challenge (status ${job.status})`,
          );
        if (isPast(ctx, job.challengeBy))
          throw new TxFailure(
            'invalid_params',
            `the challenge window of job ${job.jobId} closed at ${describeDeadline(job.challengeBy)}`,
          );
        if (job.challenge) throw new TxFailure('invalid_params', `job ${job.jobId} is already challenged`);
        if (job.assignments.some((a) => a.provider === ctx.tx.from))
          throw new TxFailure('invalid_params', 'a provider cannot challenge its own job');
        ctx.debit(ctx.tx.from, 'OMC', JOB_PARAMS.challengeDeposit);
        job.challenge = { challenger: ctx.tx.from, deposit: JOB_PARAMS.challengeDeposit.toString(), at: ctx.height };
        writeJob(writer(ctx), job);
        appendIndexed(reader(ctx), writer(ctx), TOUCHED_INDEX, job.jobId);
      },
    }),
    factory({
      kind: 'oon.supplyCode',
      summary:
        "brings the code of a job named by CID on chain for its re-execution, while a dispute over it waits for the code; anyone may send it (the job's providers' nodes do)",
      payload: SupplyCodePayload,
      execute(ctx) {
        const job = jobOf(ctx, ctx.payload.jobId);
        if (!job.codeCid) throw new TxFailure('invalid_params', `job ${job.jobId} has its code inline`);
        if (ctx.readState(codeCidKey(job.codeCid)))
          throw new TxFailure('invalid_params', `the code ${job.codeCid} is already on chain`);
        if (job.codeBy === undefined || job.status !== 'committed')
          throw new TxFailure(
            'invalid_params',
            `no dispute over job ${job.jobId} waits for its code (status ${job.status})`,
          );
        const bytes = fromHex(ctx.payload.code);
        if (bytes.length !== job.codeSize || cidOfBytes(bytes) !== job.codeCid)
          throw new TxFailure(
            'invalid_params',
            `the bytes supplied are not the object ${job.codeCid} (${job.codeSize} bytes)`,
          );
        const hash = toHex(sha256(bytes));
        if (!ctx.readState(codeKey(hash))) ctx.writeState(codeKey(hash), bytes);
        ctx.writeState(codeCidKey(job.codeCid), utf8(hash));
        // Settled at the end of this block.
        appendIndexed(reader(ctx), writer(ctx), TOUCHED_INDEX, job.jobId);
      },
    }),
  ];
}
