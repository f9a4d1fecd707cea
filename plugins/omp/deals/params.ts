/** The deals' rules (chain constants: every node must apply the same). */
export const DEAL_PARAMS = {
  /** How long the chosen providers have to accept (fetch, check and confirm) before the deal is refunded. */
  acceptWindow: { blocks: 30, ms: 120_000 },
  maxReplicas: 3,
  minDurationBlocks: 10,
  maxDurationBlocks: 10_000_000,
} as const;
