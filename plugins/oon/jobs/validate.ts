import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from '../../../sdk/bytes.js';
import { TxFailure } from '../../../chain/contract.js';
import { ModuleRejectedError } from '../../../jobs/wasm/binary.js';
import { instrument } from '../../../jobs/wasm/instrument.js';
import type { Runtime } from '../../../jobs/spec.js';
import { JOB_PARAMS } from './params.js';

/** Modules already checked, by code hash: a refusal (its reason and feature) or acceptance. */
const checked = new Map<string, { reason: string; feature: string } | null>();
const MAX_REMEMBERED = 256;

/**
 * Refuses a job the runtimes would refuse, before anything is escrowed: a WASM module the
 * instrumenter does not accept (naming the feature), empty EVM code, a gas limit over the runtime's
 * ceiling. Throws TxFailure `job_rejected`.
 */
export function checkJobCode(runtime: Runtime, code: Uint8Array, gasLimit: bigint): void {
  const ceiling = JOB_PARAMS.maxGas[runtime];
  if (gasLimit > ceiling)
    throw new TxFailure('job_rejected', `gasLimit ${gasLimit} is over the ${runtime} ceiling of ${ceiling}`);
  if (code.length === 0) throw new TxFailure('job_rejected', 'the job has no code');
  if (runtime !== 'wasm') return;
  const key = toHex(sha256(code));
  let verdict = checked.get(key);
  if (verdict === undefined) {
    try {
      instrument(code, JOB_PARAMS.limits);
      verdict = null;
    } catch (error) {
      if (!(error instanceof ModuleRejectedError)) throw error;
      verdict = { reason: error.message, feature: error.feature };
    }
    if (checked.size >= MAX_REMEMBERED) checked.delete(checked.keys().next().value!);
    checked.set(key, verdict);
  }
  if (verdict)
    throw new TxFailure('job_rejected', `${verdict.reason} [${verdict.feature}]`, { feature: verdict.feature });
}
