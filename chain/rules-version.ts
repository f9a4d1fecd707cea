/**
 * The version of the chain rules this svc-node implements: everything that decides a block's state
 * root — the state tree and its encodings, the transaction kinds and their effects, fees, schedules
 * (epochs, unbonding, deal and job deadlines). A release that changes any of them bumps it. A network
 * declares the version it runs in its genesis (`rulesVersion`; the devnet: this one), where it is part
 * of block 0's state; a node refuses a genesis, a data dir and a peer of another version, naming both.
 */
// 1: the first recorded. 2: contracts call the OON precompile (jobs paid by a contract, called
// back at the end of the block that settles them), the OMP precompile and the OGT view. 3: closed
// and failed deals leave the state `dealRecordBlocks` after they end (and their objects' lists).
// 4: Ethereum's test vectors: a legacy transaction with a high s (EIP-2) is refused, the
// point-evaluation precompile (0x0a) runs, the OMP precompile's objectInfo lists active deals only.
// 5: consensus sends blocks as their transactions' hashes (validators fill them from their mempool
// and fetch the rest); state roots are unchanged, but validators of 4 and 5 cannot run consensus together.
export const CHAIN_RULES_VERSION = 5;

/** Block 0's state key holding the network's rules version. */
export const RULES_VERSION_KEY = 'params/rulesVersion';

/** Why a version is not this node's, or undefined. */
export function rulesVersionMismatch(what: string, theirs: number | undefined, ours: number): string | undefined {
  if (theirs === ours) return undefined;
  const named =
    theirs === undefined
      ? 'no version (written before chain-rules versions were recorded)'
      : `chain rules version ${theirs}`;
  return `${what} ${theirs === undefined ? 'has' : 'runs'} ${named}; this node runs chain rules version ${ours}`;
}
