import { CID } from 'multiformats/cid';
import { utf8 } from '../../../sdk/bytes.js';
import { isTxFailure, TxFailure } from '../../../chain/contract.js';
import type { ReadState } from '../../../chain/state/indexed.js';
import type { JobOutcome } from '../../../jobs/outcome.js';
import type { Runtime } from '../../../jobs/spec.js';
import type { OmpDeals } from '../../omp/deals/capability.js';
import { JOB_PARAMS } from './params.js';
import { checkJobCode } from './validate.js';

/**
 * A job's code is inline (its bytes in the submission, kept in the state by hash) or named by the CID
 * of a stored object with an active storage deal: providers fetch it from the object's holders and
 * check its CID; the chain holds it only when a dispute needs it re-executed (`oon.supplyCode`).
 *
 * State: `oon/code-cid/<cid>` -> the sha256 (0x hex) under which the object's bytes were supplied
 * (`oon/code/<sha256>`).
 */
export const codeCidKey = (cid: string): string => `oon/code-cid/${cid}`;

/** Reads a stored object whole, checked against its CID (from this node's copy or a holder's); undefined when none serves it. */
export type ObjectReader = (cid: string, maxBytes: number, signal: AbortSignal) => Promise<Uint8Array | undefined>;

/** How long a node waits for code named by CID before it gives up on one attempt. */
export const CODE_FETCH_TIMEOUT_MS = 30_000;

/** The canonical text of a CID (v1, base32), or a TxFailure `invalid_params`. */
export function canonicalCid(text: string): string {
  try {
    return CID.parse(text).toV1().toString();
  } catch {
    throw new TxFailure('invalid_params', `codeCid ${text} is not a CID`);
  }
}

/** The active storage deal that keeps `cid`, whose size a job's code may have; else a TxFailure `job_rejected`. */
export function codeDeal(read: ReadState, deals: OmpDeals, cid: string): { readonly size: number } {
  const active = deals.activeDealOf(read, cid);
  if (!active)
    throw new TxFailure(
      'job_rejected',
      `no active storage deal keeps ${cid}: store the code with a deal first (svc omp put --replicas N --duration BLOCKS --price OMC)`,
    );
  if (active.size > JOB_PARAMS.maxCodeBytesByCid)
    throw new TxFailure(
      'job_rejected',
      `the object ${cid} is ${active.size} bytes: code by CID may be at most ${JOB_PARAMS.maxCodeBytesByCid} bytes`,
    );
  return active;
}

/**
 * A stored object as a job's code: a WASM job's object is the module itself; an EVM job's is its
 * bytecode as hex text (what `solc --bin` writes: optional 0x, whitespace around it). Code the
 * runtime would refuse at submission is `refused`, with the reason: a run of it is a `trap:code
 * refused` result, the same on every node.
 */
export function codeFromObject(
  runtime: Runtime,
  object: Uint8Array,
  gasLimit: bigint,
): { readonly code: Uint8Array } | { readonly refused: string } {
  let code = object;
  if (runtime === 'evm') {
    const hex = /^\s*(?:0x)?((?:[0-9a-fA-F]{2})+)\s*$/.exec(Buffer.from(object).toString('latin1'));
    if (!hex) return { refused: 'an evm job by CID names its bytecode as hex text, and this object is not' };
    code = Uint8Array.from(Buffer.from(hex[1]!, 'hex'));
  }
  try {
    checkJobCode(runtime, code, gasLimit);
    return { code };
  } catch (error) {
    if (isTxFailure(error)) return { refused: error.message };
    throw error;
  }
}

/** The result of running refused code: no gas, no output, the reason as its log. */
export function refusedOutcome(reason: string): JobOutcome {
  return { exit: { kind: 'trap', reason: 'code refused' }, gasUsed: 0n, output: new Uint8Array(0), log: utf8(reason) };
}

/** Runs a job's code from its object: refused code gives `refusedOutcome` without running. */
export async function runFromObject(
  runtime: Runtime,
  object: Uint8Array,
  gasLimit: bigint,
  run: (code: Uint8Array) => Promise<JobOutcome>,
): Promise<JobOutcome> {
  const checked = codeFromObject(runtime, object, gasLimit);
  return 'refused' in checked ? refusedOutcome(checked.refused) : run(checked.code);
}
