/** The deals' rules (chain constants: every node must apply the same). */
export const DEAL_PARAMS = {
  /** How long the chosen providers have to accept (fetch, check and confirm) before the deal is refunded. */
  acceptWindow: { blocks: 30, ms: 120_000 },
  maxReplicas: 3,
  /** Blocks between proofs of storage: a challenge at the start of each period, answered by its end. */
  proofPeriodBlocks: 10,
  /** Segments each challenge asks of each provider. */
  segmentsPerChallenge: 2,
  /** Share of its storage bond a provider loses for a missed or failed challenge (per mille), to the client. */
  faultSlashPerMille: 10n,
  /** Faults after which a replica is faulty: no longer challenged, paid or read from. */
  maxFaults: 3,
  minDurationBlocks: 10,
  maxDurationBlocks: 10_000_000,
} as const;

/**
 * Blocks a closed or failed deal's record stays in the state: `params/dealRecordBlocks` (CBOR uint),
 * set by a genesis file's `"dealRecordBlocks"`, else this default (about 8 hours of 3 s blocks). After
 * that the record is history: an archive node answers for it always, others within their history window.
 */
export const DEFAULT_DEAL_RECORD_BLOCKS = 10_000;
