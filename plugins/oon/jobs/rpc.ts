import Type from 'typebox';
import { sha256 } from '@noble/hashes/sha2.js';
import { normalizeAddress } from '../../../sdk/address.js';
import { fromHex, toHex } from '../../../sdk/bytes.js';
import { domainError } from '../../../sdk/errors.js';
import { AddressSchema, BlockTagSchema, HashSchema, RawTransactionSchema } from '../../../chain/schemas.js';
import { isTxFailure, TxFailure } from '../../../chain/contract.js';
import { submitFromClient } from '../../../chain/client-submit.js';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../../kernel/plugin.js';
import { ModuleRejectedError } from '../../../jobs/wasm/binary.js';
import type { OonService } from '../service.js';
import { reportOf } from './end-block.js';
import { JOB_PARAMS } from './params.js';
import { ALL_INDEX, jobRetention, providerIndex, readIndexed, requesterIndex, type JobStatus } from './state.js';
import { jobLimitProblem, jobPayloadRefusal, SubmitJobPayload } from './tx-kinds.js';
import { checkJobCode } from './validate.js';
import { canonicalCid, CODE_FETCH_TIMEOUT_MS, codeDeal, codeFromObject } from './code.js';
import { JobStatusSchema, jobView, JobViewSchema } from './view.js';

const ListFilter = Type.Object(
  {
    requester: Type.Optional(AddressSchema),
    provider: Type.Optional(AddressSchema),
    status: Type.Optional(JobStatusSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.Integer({ minimum: 0, description: 'from a previous page\'s "cursor"' })),
  },
  { additionalProperties: false },
);
/** Hex without a size: a job's size limits are checked by the handler, to refuse them as a submission is (`job_rejected`). */
const unboundedHex = (description: string) => Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', description });
const EstimateSchema = Type.Object(
  {
    runtime: SubmitJobPayload.properties.runtime,
    code: Type.Optional(unboundedHex('the WASI module or the EVM runtime bytecode, inline (or codeCid)')),
    codeCid: SubmitJobPayload.properties.codeCid,
    input: Type.Optional(unboundedHex('stdin of a WASM job, calldata of an EVM job')),
    args: Type.Optional(Type.Array(Type.String())),
    gasLimit: SubmitJobPayload.properties.gasLimit,
  },
  { additionalProperties: false },
);

/** A job_rejected domain error from a runtime refusal, naming the feature. */
function rejected(error: unknown): never {
  if (isTxFailure(error)) throw domainError(error.error, error.message, error.data);
  if (error instanceof ModuleRejectedError)
    throw domainError('job_rejected', error.message, { feature: error.feature });
  throw error;
}

/** The job methods every node answers (jobs are chain state). */
export function jobMethods(method: MethodFactory<OonService>): RpcMethod[] {
  return [
    method({
      name: 'svc_oonSubmitJob',
      summary:
        'Submits a signed oon.submitJob transaction (the same as svc_sendRawTransaction, with the job checked first); returns the job id, which is the transaction hash.',
      params: [param('rawTransaction', RawTransactionSchema)],
      result: Type.Object({ jobId: HashSchema, txHash: HashSchema }, { additionalProperties: false }),
      errors: [
        'invalid_params',
        'invalid_transaction',
        'invalid_signature',
        'job_rejected',
        'insufficient_funds',
        'nonce_too_low',
        'nonce_gap',
        'nonce_conflict',
        'already_known',
        'mempool_full',
      ],
      handler: async ([raw], { service }) => {
        // The kind is checked on the transaction the node decodes and verifies anyway (once, off the main thread).
        const tx = await submitFromClient(service.chain, service.submitter, fromHex(raw), ({ kind }) => {
          if (kind !== 'oon.submitJob')
            throw domainError('invalid_params', `this method takes an oon.submitJob transaction, not ${kind}`, {
              field: 'rawTransaction',
            });
        });
        return { jobId: tx.hash, txHash: tx.hash };
      },
    }),
    method({
      name: 'svc_oonGetJob',
      summary:
        'A job by id: status, providers, gas, fee, escrow, exit, output hash (and the output when small), why it waits or failed, and its blocks; at the head, or as it was after a past block.',
      description:
        'A past blockNumber is answered within the history window (any block on an archive node); older ones answer `pruned`. A settled job whose record has left the state and the history window answers `pruned` too (the transaction that submitted it is kept); an archive node keeps every record.',
      params: [param('jobId', HashSchema), optionalParam('blockNumber', BlockTagSchema)],
      result: JobViewSchema,
      errors: ['invalid_params', 'not_found', 'pruned'],
      handler: async ([jobId, tag], { service }) => {
        const height = tag === undefined ? undefined : service.chain.heightOf(tag);
        const job = await service.jobRecord(jobId.toLowerCase(), height);
        if (!job && height !== undefined)
          throw domainError('not_found', `no job ${jobId} at block ${height}`, { jobId, blockNumber: height });
        if (!job) {
          // A job signed as a transaction is that transaction, which every node keeps: it tells a pruned record from an id no job had.
          const recordBlocks = service.jobRecordBlocks();
          const submittedAt = await jobRetention.prunedSince(service.chain, jobId.toLowerCase(), 'oon.submitJob');
          if (submittedAt !== undefined) {
            throw domainError(
              'pruned',
              `job ${jobId}, submitted in block ${submittedAt}, has left the state (a settled job's record leaves it ${recordBlocks} blocks after it settles) and this node's history: an archive node keeps it`,
              { jobId, submittedAt },
            );
          }
          throw domainError(
            'not_found',
            `no job ${jobId} in this node's state or history (a settled job's record leaves the state ${recordBlocks} blocks after it settles; an archive node keeps it)`,
            { jobId },
          );
        }
        return jobView(job);
      },
    }),
    method({
      name: 'svc_oonListJobs',
      summary:
        'Jobs, newest first: of a requester, of a provider, or all; optionally of one status; pages of `limit` (default 50) with a cursor.',
      params: [optionalParam('filter', ListFilter)],
      result: Type.Object(
        {
          jobs: Type.Array(JobViewSchema),
          cursor: Type.Union([Type.Integer(), Type.Null()], {
            description: 'pass it to get the next page; null at the end',
          }),
        },
        { additionalProperties: false },
      ),
      errors: ['invalid_params', 'invalid_address'],
      handler: async ([filter], { service }) => {
        const read = (key: string) => service.chain.state.get(key);
        const index = filter?.requester
          ? requesterIndex(normalizeAddress(filter.requester))
          : filter?.provider
            ? providerIndex(normalizeAddress(filter.provider))
            : ALL_INDEX;
        const limit = filter?.limit ?? 50;
        const jobs = [];
        let cursor: number | undefined = filter?.cursor;
        // With a status filter, read on until the page is full (at most 20 pages' worth of entries).
        for (let scanned = 0; jobs.length < limit && scanned < limit * 20; ) {
          const page = readIndexed(read, index, limit, cursor);
          for (const id of page.ids) {
            const job = await service.jobRecord(id);
            if (job && (!filter?.status || job.status === (filter.status as JobStatus))) jobs.push(jobView(job));
            if (jobs.length >= limit) break;
          }
          scanned += page.ids.length;
          cursor = page.next;
          if (cursor === undefined) break;
        }
        return { jobs, cursor: cursor ?? null };
      },
    }),
    method({
      name: 'svc_oonEstimate',
      summary:
        'Runs a job once on this node, changing nothing: gasUsed, exit and output, to choose a gas limit before submitting.',
      params: [param('job', EstimateSchema)],
      result: Type.Object(
        {
          gasUsed: Type.String(),
          exit: Type.String(),
          outputHash: Type.String(),
          outputSize: Type.Integer(),
          output: Type.String({ description: '0x hex, cut at 64 KiB' }),
        },
        { additionalProperties: false },
      ),
      errors: ['invalid_params', 'job_rejected'],
      handler: async ([job], { service }) => {
        const overLimit = jobLimitProblem(job);
        if (overLimit) {
          const refusal = jobPayloadRefusal(overLimit);
          throw domainError(refusal.error, overLimit.reason, { field: overLimit.field, ...refusal.data });
        }
        const gasLimit = BigInt(job.gasLimit);
        let code: Uint8Array;
        try {
          if ((job.code === undefined) === (job.codeCid === undefined))
            throw new TxFailure(
              'invalid_params',
              'give the code inline (code) or by the CID of a stored object (codeCid): one of the two',
            );
          if (job.code !== undefined) code = fromHex(job.code);
          else {
            const cid = canonicalCid(job.codeCid!);
            codeDeal((key) => service.chain.state.get(key), service.deals, cid);
            const object = await service.readObject(
              cid,
              JOB_PARAMS.maxCodeBytesByCid,
              AbortSignal.timeout(CODE_FETCH_TIMEOUT_MS),
            );
            if (!object)
              throw new TxFailure(
                'job_rejected',
                `no provider of ${cid} served its bytes (checked against the CID) within ${CODE_FETCH_TIMEOUT_MS / 1000} s`,
              );
            const checked = codeFromObject(job.runtime, object, gasLimit);
            if ('refused' in checked) throw new TxFailure('job_rejected', checked.refused);
            code = checked.code;
          }
          checkJobCode(job.runtime, code, gasLimit);
        } catch (error) {
          rejected(error);
        }
        const head = service.chain.head;
        const outcome = await service
          .run({
            runtime: job.runtime,
            code,
            input: fromHex(job.input ?? '0x'),
            args: job.args ?? ['job'],
            gasLimit,
            timestamp: head.timestamp,
            height: head.height,
            seed: sha256(code),
            limits: JOB_PARAMS.limits,
          })
          .catch(rejected);
        const report = reportOf(outcome);
        return {
          gasUsed: report.gasUsed,
          exit: report.exit,
          outputHash: report.outputHash,
          outputSize: report.outputSize,
          output: toHex(outcome.output.subarray(0, JOB_PARAMS.maxInlineOutput)),
        };
      },
    }),
  ];
}
