import { sha256 } from '@noble/hashes/sha2.js';
import { Compile } from 'typebox/compile';
import { encodeAbiParameters, encodeFunctionResult, parseAbi, type Hex } from 'viem';
import type { Address } from '../../sdk/address.js';
import { encode, decode } from '../../sdk/encoding.js';
import { fromHex, toHex, utf8 } from '../../sdk/bytes.js';
import type { BlockContext } from '../../chain/contract.js';
import { appendIndexed, drainIndexed } from '../../chain/state/indexed.js';
import {
  decodePrecompileCall,
  PrecompileRevert,
  type ContractCallback,
  type Precompile,
  type PrecompileCall,
  type PrecompileFactory,
  requirePayingCall,
} from '../evm/precompiles.js';
import { createJob, SubmitJobPayload, type SubmitJob } from './jobs/tx-kinds.js';
import { CALLBACKS_DUE_INDEX, readJob, writeJob, type JobRecord, type JobStatus } from './jobs/state.js';
import { JOB_PARAMS } from './jobs/params.js';
import { payloadProblem } from '../evm/payload-problem.js';
import { hexOfAddress } from '../../sdk/address.js';
import type { OmpDeals } from '../omp/deals/capability.js';
import type { OonService } from './service.js';

/** The OON precompile's address. */
export const OON_PRECOMPILE_ADDRESS = '0x0000000000000000000000000000000000000800';
const OON_ACCOUNT: Address = `svc1${OON_PRECOMPILE_ADDRESS.slice(2)}`;

// The precompile's functions, written once: its ABI, its documented table and (checked by a test)
// contracts/IOON.sol all say the same.
const SUBMIT_JOB = 'function submitJob(JobRequest request) returns (bytes32 jobId)';
const JOB_STATUS =
  'function jobStatus(bytes32 jobId) view returns (uint8 status, address requester, string exit, bytes32 outputHash, uint64 gasUsed, uint256 fee, bytes output)';

export const OON_ABI = parseAbi([
  'struct JobRequest { string runtime; bytes code; string codeCid; bytes input; string[] args; uint64 gasLimit; uint256 gasPrice; uint8 replicas; bytes4 callback; uint64 callbackGasLimit; }',
  SUBMIT_JOB,
  JOB_STATUS,
]);

/** The arguments the chain calls a contract back with: `(bytes32 jobId, uint8 status, string exit, bytes32 outputHash, bytes output)`. */
const CALLBACK_PARAMETERS = [
  { type: 'bytes32' },
  { type: 'uint8' },
  { type: 'string' },
  { type: 'bytes32' },
  { type: 'bytes' },
] as const;

/** A job's status as the precompile answers it (0: no such job, or its record has left the state). */
export const JOB_STATUS_CODES: Readonly<Record<JobStatus, number>> = {
  queued: 1,
  assigned: 2,
  committed: 3,
  finalized: 4,
  failed: 5,
  expired: 6,
};

/** Gas of the precompile's functions. */
export const OON_GAS = {
  submitJob: 50_000n,
  /** Per byte of code, input and args a submission stores. */
  submitJobPerByte: 16n,
  jobStatus: 3_000n,
  /** Per 32-byte word of output returned. */
  jobStatusPerWord: 3n,
  /** What a refused call costs. */
  refused: 3_000n,
} as const;

const ZERO_HASH = `0x${'0'.repeat(64)}` as const;
const NO_CALLBACK = '0x00000000';
const checkPayload = Compile(SubmitJobPayload);

/** The id of a contract's `n`th job: the contract and a counter, hashed (a job submitted by a signed transaction has that transaction's hash). */
function contractJobId(contract: Address, n: number): string {
  return toHex(sha256(utf8(`oon-contract-job|${contract}|${n}`)));
}

const contractJobsKey = (contract: Address): string => `oon/contract-jobs/${contract}`;

interface JobRequest {
  runtime: string;
  code: Hex;
  codeCid: string;
  input: Hex;
  args: readonly string[];
  gasLimit: bigint;
  gasPrice: bigint;
  replicas: number;
  callback: Hex;
  callbackGasLimit: bigint;
}

function submitJob(call: PrecompileCall, deals: OmpDeals, request: JobRequest): Uint8Array {
  const { ctx } = call;
  requirePayingCall(call, 'submitJob', OON_GAS.refused);
  const payload = {
    runtime: request.runtime,
    ...(request.code !== '0x' ? { code: request.code.toLowerCase() } : {}),
    ...(request.codeCid !== '' ? { codeCid: request.codeCid } : {}),
    input: request.input.toLowerCase(),
    args: [...request.args],
    gasLimit: request.gasLimit.toString(),
    gasPrice: request.gasPrice.toString(),
    replicas: request.replicas,
  };
  if (!checkPayload.Check(payload)) {
    throw new PrecompileRevert(
      `invalid_params: ${payloadProblem(SubmitJobPayload, checkPayload.Errors(payload))}`,
      OON_GAS.refused,
    );
  }
  const wantsCallback = request.callback !== NO_CALLBACK;
  if (!wantsCallback && request.callbackGasLimit > 0n)
    throw new PrecompileRevert('invalid_params: callbackGasLimit without a callback selector', OON_GAS.refused);
  if (request.callbackGasLimit > JOB_PARAMS.maxCallbackGas)
    throw new PrecompileRevert(
      `job_rejected: callbackGasLimit ${request.callbackGasLimit} is over ${JOB_PARAMS.maxCallbackGas}`,
      OON_GAS.refused,
    );
  if (wantsCallback && request.callbackGasLimit === 0n)
    throw new PrecompileRevert('invalid_params: a callback needs callbackGasLimit above 0', OON_GAS.refused);
  const n = ((): number => {
    const raw = ctx.readState(contractJobsKey(call.caller));
    return raw ? decode<number>(raw) : 0;
  })();
  const jobId = contractJobId(call.caller, n);
  ctx.writeState(contractJobsKey(call.caller), encode(n + 1));
  createJob(
    ctx,
    deals,
    call.caller,
    jobId,
    payload as SubmitJob,
    wantsCallback ? { selector: request.callback.toLowerCase(), gasLimit: request.callbackGasLimit } : undefined,
  );
  return fromHex(encodeFunctionResult({ abi: OON_ABI, functionName: 'submitJob', result: jobId as Hex }));
}

/** The exit, output hash and output a job's callback and status carry (empty until it is finalized). */
function resultOf(job: JobRecord | undefined): { exit: string; outputHash: Hex; gasUsed: bigint; output: Uint8Array } {
  if (job?.status !== 'finalized' || !job.result)
    return { exit: '', outputHash: ZERO_HASH, gasUsed: 0n, output: new Uint8Array(0) };
  return {
    exit: job.result.exit,
    outputHash: job.result.outputHash as Hex,
    gasUsed: BigInt(job.result.gasUsed),
    output: job.result.output ?? new Uint8Array(0),
  };
}

function jobStatus(call: PrecompileCall, jobId: Hex): { gas: bigint; output: Uint8Array } {
  const job = readJob((key) => call.ctx.readState(key), jobId.toLowerCase());
  const result = resultOf(job);
  const requester = job ? hexOfAddress(job.requester) : (`0x${'0'.repeat(40)}` as Hex);
  const encoded = encodeFunctionResult({
    abi: OON_ABI,
    functionName: 'jobStatus',
    result: [
      job ? JOB_STATUS_CODES[job.status] : 0,
      requester,
      result.exit,
      result.outputHash,
      result.gasUsed,
      BigInt(job?.fee ?? '0'),
      toHex(result.output) as Hex,
    ],
  });
  return {
    gas: OON_GAS.jobStatus + OON_GAS.jobStatusPerWord * BigInt(Math.ceil(result.output.length / 32)),
    output: fromHex(encoded),
  };
}

/** The call a settled contract job makes back to its contract, and what is recorded of it. */
function callbackOf(job: JobRecord): ContractCallback {
  const callback = job.callback!;
  const result = resultOf(job);
  // A long output stays out of the call (the contract has its hash, and jobStatus returns it).
  const output = result.output.length <= JOB_PARAMS.maxCallbackOutput ? result.output : new Uint8Array(0);
  const args = encodeAbiParameters(CALLBACK_PARAMETERS, [
    job.jobId as Hex,
    JOB_STATUS_CODES[job.status],
    result.exit,
    result.outputHash,
    toHex(output) as Hex,
  ]);
  return {
    origin: `oon.job ${job.jobId}`,
    to: job.requester as Address,
    from: OON_ACCOUNT,
    data: fromHex(`${callback.selector}${args.slice(2)}`),
    gasLimit: BigInt(callback.gasLimit),
    done(outcome, ctx: BlockContext, hash) {
      const settled = readJob((key) => ctx.readState(key), job.jobId)!;
      const record = settled.callback!;
      // Paid at the job's gas price to the block's proposer, who ran it; the rest of the reserve goes back.
      const fee = outcome.gasUsed * BigInt(settled.gasPrice);
      ctx.credit(ctx.proposer, 'OMC', fee);
      ctx.credit(settled.requester as Address, 'OMC', BigInt(record.reserve) - fee);
      settled.escrow = '0';
      record.status = outcome.status;
      record.gasUsed = outcome.gasUsed.toString();
      record.calledAt = ctx.height;
      if (outcome.reason !== undefined) record.revert = outcome.reason.slice(0, 512);
      if (hash !== undefined) record.hash = hash;
      writeJob((key, value) => ctx.writeState(key, value), settled);
    },
  };
}

/** The OON precompile: contracts submit jobs paid from their OMC and read them; the chain calls them back when a job is over. */
export function oonPrecompile(precompile: PrecompileFactory<OonService>): Precompile {
  return precompile({
    address: OON_PRECOMPILE_ADDRESS,
    name: 'OON',
    summary:
      'Compute jobs from contracts: submitJob escrows from the calling contract exactly as oon.submitJob does, and the chain calls the contract back when the job is over',
    revertGas: OON_GAS.refused,
    functions: [
      {
        signature: SUBMIT_JOB,
        gas: `${OON_GAS.submitJob} + ${OON_GAS.submitJobPerByte} per byte of code, input and args`,
        summary:
          'creates a job paid by the calling contract: gasLimit × gasPrice × replicas, plus callbackGasLimit × gasPrice held for the callback',
      },
      {
        signature: JOB_STATUS,
        gas: `${OON_GAS.jobStatus} + ${OON_GAS.jobStatusPerWord} per 32-byte word of output`,
        summary:
          'a job as the chain holds it: status 0 none (or forgotten), 1 queued, 2 assigned, 3 committed, 4 finalized, 5 failed, 6 expired',
      },
    ],
    run(call, service) {
      const decoded = decodePrecompileCall(OON_ABI, call.input, OON_GAS.refused);
      if (decoded.functionName === 'jobStatus') return jobStatus(call, decoded.args[0]);
      const request = decoded.args[0] as JobRequest;
      const bytes =
        fromHex(request.code).length +
        fromHex(request.input).length +
        request.args.reduce((sum, arg) => sum + utf8(arg).length, 0);
      return {
        gas: OON_GAS.submitJob + OON_GAS.submitJobPerByte * BigInt(bytes),
        output: submitJob(call, service.deals, request),
      };
    },
    callbacks(ctx) {
      const read = (key: string): Uint8Array | undefined => ctx.readState(key);
      const write = (key: string, value: Uint8Array | undefined): void => ctx.writeState(key, value);
      const due = drainIndexed(read, write, CALLBACKS_DUE_INDEX)
        .map((jobId) => readJob(read, jobId))
        .filter((job): job is JobRecord => job?.callback !== undefined && job.callback.status === undefined);
      // Within the block's callback gas, oldest first; the rest wait for the next block, in order.
      let budget = JOB_PARAMS.callbackGasPerBlock;
      let deferring = false;
      const now: JobRecord[] = [];
      for (const job of due) {
        const gas = BigInt(job.callback!.gasLimit);
        deferring ||= gas > budget;
        if (deferring) appendIndexed(read, write, CALLBACKS_DUE_INDEX, job.jobId);
        else {
          budget -= gas;
          now.push(job);
        }
      }
      return now.map(callbackOf);
    },
  });
}
