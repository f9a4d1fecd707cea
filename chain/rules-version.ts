/**
 * The chain rules: everything that decides a block's state root — the state tree and its encodings,
 * the transaction kinds and their effects, fees, schedules (epochs, unbonding, deal and job
 * deadlines) — and how validators exchange blocks. They have versions, and a network's rules are a
 * schedule of them: the version in its genesis from block 0 (`params/rulesVersion` in block 0's
 * state), then each version an upgrade plan adopted, from the plan's height (chain/rules-schedule.ts).
 * Every block executes, and is checked and replayed, under the version of its height.
 *
 * A release implements the versions listed here, oldest first, and keeps every earlier one a
 * network it supports may have run: a new version is added, never swapped for the old one. A node
 * that meets a height whose version is not listed stops before that block (chain/rules-halt.ts).
 */
export interface RulesVersionInfo {
  readonly version: number;
  /** What changed from the version before. */
  readonly summary: string;
}

// Versions 1 to 4 are dropped: devnet-only, and every network that ran them was replaced (each new
// version then needed a new network). One entry per line: a test withholds the newest from a copy of
// a release to make the release before it.
export const RULES_VERSIONS: readonly RulesVersionInfo[] = [
  { version: 5, summary: "consensus sends a block as its transactions' hashes; validators fetch what they lack" },
  { version: 6, summary: 'upgrade plans adopted on chain: upgrade.propose and upgrade.approve' },
  { version: 7, summary: 'callbacks to contracts are system transactions (type 0x7d) with receipts' },
];

/** The newest version this release implements: what a new network (the devnet, `svc-node init`) starts on. */
export const NEWEST_RULES_VERSION: number = RULES_VERSIONS.at(-1)!.version;

/** Whether this release can execute blocks of `version`. */
export const knowsRulesVersion = (version: number): boolean => RULES_VERSIONS.some((v) => v.version === version);

/** The versions this release implements, as operators read them in a message: "5, 6". */
export const knownRulesVersions = (): string => RULES_VERSIONS.map((v) => v.version).join(', ');

/** Block 0's state key holding the network's first rules version. */
export const RULES_VERSION_KEY = 'params/rulesVersion';

/** Why a network of genesis version `theirs` is not one this release can run, or undefined. */
export function unknownGenesisVersion(what: string, theirs: number): string | undefined {
  if (knowsRulesVersion(theirs)) return undefined;
  return `${what} runs chain rules version ${theirs}; this release implements versions ${knownRulesVersions()}`;
}
