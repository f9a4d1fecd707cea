import type { ErrorDeclarations } from '../sdk/errors.js';

/** The chain plugin's errors: a transaction refused at admission, or a balance that cannot pay. */
export const CHAIN_ERRORS = {
  insufficient_funds: { code: -32021, description: "the account's balance can't cover the bond or transfer" },
  invalid_transaction: {
    code: -32070,
    description: 'the raw transaction is malformed, of an unknown kind, or has an invalid payload or signer',
  },
  invalid_signature: { code: -32071, description: "the transaction's signature does not verify" },
  wrong_chain_id: { code: -32072, description: 'the transaction is signed for another chain id' },
  nonce_too_low: { code: -32073, description: 'the nonce was already used by a mined transaction; `data.expected`' },
  nonce_gap: { code: -32074, description: 'the nonce is too far ahead of the account nonce; `data.expected`' },
  nonce_conflict: {
    code: -32075,
    description:
      'another pending transaction of the sender has this nonce, and this one does not raise both its fees by 10% to replace it (a kind without fees is never replaced)',
  },
  already_known: { code: -32076, description: 'this transaction is already pending or mined' },
  mempool_full: { code: -32077, description: 'the mempool holds as many transactions as it may; retry later' },
} as const satisfies ErrorDeclarations;
