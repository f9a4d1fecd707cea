import { RpcError, isDomainError, isRpcError } from '../../../sdk/errors.js';
import { toHex } from '../../../sdk/bytes.js';
import { revertReason } from '../revert-reason.js';

/**
 * An error in Ethereum's JSON-RPC conventions, which tools match on: `-32000` with geth's words
 * ("nonce too low", "insufficient funds for gas * price + value"), `3` "execution reverted" with the
 * revert bytes as `data`, `-32005` for a limit.
 */
export class EthRpcError extends RpcError {
  constructor(
    code: number,
    message: string,
    private readonly raw?: unknown,
  ) {
    super(code, message);
  }

  /** The revert bytes a code-3 error carries (hex), for the svc_ side's own error. */
  get revertData(): string | undefined {
    return this.code === 3 && typeof this.raw === 'string' ? this.raw : undefined;
  }

  override toJSON(): { code: number; message: string; data?: never } {
    return (
      this.raw === undefined
        ? { code: this.code, message: this.message }
        : { code: this.code, message: this.message, data: this.raw }
    ) as { code: number; message: string };
  }
}

/** A reverted call: code 3, geth's message with the decoded reason, the revert bytes as data. */
export function revertError(data: Uint8Array): EthRpcError {
  return new EthRpcError(3, revertReason(data), toHex(data));
}

/** The geth words for the chain's refusals of a submitted transaction. */
const SUBMISSION_WORDS: Record<string, string> = {
  nonce_too_low: 'nonce too low',
  nonce_gap: 'nonce too high',
  nonce_conflict: 'replacement transaction underpriced',
  already_known: 'already known',
  insufficient_funds: 'insufficient funds for gas * price + value',
  wrong_chain_id: 'invalid chain id',
  invalid_signature: 'invalid sender',
  fee_too_low: 'max fee per gas less than block base fee',
  code_too_large: 'max initcode size exceeded',
  mempool_full: 'txpool is full',
};

/**
 * A domain error of the chain as Ethereum tools expect it: `-32000` and geth's words first, our
 * reason after (`nonce too low: nonce 3 is already used; the next nonce is 5`). Transport errors
 * (401, 429) and parameter errors pass unchanged.
 */
export function ethereumError(error: unknown): unknown {
  if (!isRpcError(error) || error.httpStatus !== undefined || error.code === -32602 || error instanceof EthRpcError)
    return error;
  const words = SUBMISSION_WORDS[error.message];
  const reason = error.data?.reason;
  if (words) return new EthRpcError(-32000, reason && !reason.startsWith(words) ? `${words}: ${reason}` : words);
  if (isDomainError(error, 'invalid_transaction') && reason) return new EthRpcError(-32000, reason);
  return error;
}
