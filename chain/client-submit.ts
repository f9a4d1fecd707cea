import { domainError, isDomainError } from '../sdk/errors.js';
import type { SignedTransaction } from '../sdk/transaction.js';
import { decodeStored } from './decode-verified.js';
import type { ChainReader, TxSubmitter } from './capabilities.js';

/**
 * Admits a raw transaction a client sent. A replay of one already mined fails its nonce check; the
 * client is told what it is (`already_known`) rather than `nonce_too_low`. (Peers' gossip does not
 * come this way: a stale gossiped transaction costs no receipt lookup.)
 */
export async function submitFromClient(
  chain: Pick<ChainReader, 'getReceipt' | 'envelope'>,
  submitter: Pick<TxSubmitter, 'submitRaw'>,
  bytes: Uint8Array,
  accept?: (tx: SignedTransaction) => void,
): Promise<SignedTransaction> {
  try {
    return await submitter.submitRaw(bytes, accept ? { accept } : {});
  } catch (error) {
    const hash = isDomainError(error, 'nonce_too_low') ? decodeStored(bytes, chain.envelope).hash : undefined;
    if (hash && (await chain.getReceipt(hash)))
      throw domainError('already_known', `transaction ${hash} is already mined`, { hash });
    throw error;
  }
}
