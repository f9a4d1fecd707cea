import type { CommitCertificate } from './block.js';
import type { Address } from './address.js';

export interface WireError {
  code: number;
  message: string;
  data?: { reason: string; [key: string]: unknown };
}

export interface JsonRpcReply<T> {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: T;
  error?: WireError;
}

export interface BlockView {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
  chainId: string;
  proposer: Address;
  proposerKey: string;
  txRoot: string;
  stateRoot: string;
  receiptRoot: string;
  signature: string;
  /** The parent block's commit certificate (null in blocks 0 and 1). */
  lastCommit: CommitCertificate | null;
  transactions: string[];
  /** The chain's own transactions after the user ones (a compute job's callback to its contract); absent when none. */
  systemTransactions?: string[];
}

export interface Balance {
  address: Address;
  blockNumber: number;
  /** Base units. */
  omc: bigint;
  ogt: bigint;
  /** Human amounts with 18 fractional digits, e.g. "10.000000000000000000". */
  balanceOMC: string;
  balanceOGT: string;
  /** OGT bonded per purpose (`compute`, `storage`), base units; not included in `ogt`. */
  bonded: Record<string, bigint>;
  /** All bonded OGT, human amount with 18 fractional digits. */
  bondedOGT: string;
}

export interface TransactionView {
  hash: string;
  from: Address;
  chainId: string;
  kind: string;
  nonce: number;
  publicKey: string;
  signature: string;
  payload: Record<string, unknown>;
  status: 'pending' | 'mined';
  blockNumber: number | null;
  index: number | null;
  /** In `svc_listTransactions`: a mined transaction's receipt status (absent where the receipt is outside the history window). */
  outcome?: 'success' | 'failed';
}

/** `svc_listTransactions`: a page of an account's mined transactions, newest first. */
export interface TransactionPage {
  transactions: TransactionView[];
  /** Pass it back for the next page; null at the end. */
  cursor: string | null;
  /** The first block this node indexed by account (0 unless its data dir predates the index). */
  indexedFrom: number;
}

export interface Receipt {
  transactionHash: string;
  blockNumber: number;
  blockHash: string;
  index: number;
  from: Address;
  kind: string;
  status: 'success' | 'failed';
  error?: { name: string; reason: string };
  /** EVM transactions: gas, logs, the contract a create made, the price paid per gas, revert data. */
  gasUsed?: number;
  cumulativeGasUsed?: number;
  effectiveGasPrice?: string;
  contractAddress?: Address;
  logs?: { address: Address; topics: string[]; data: string }[];
  revert?: string;
}

export interface ChainInfo {
  network: string;
  chainId: string;
  /** The chain-rules version the next block runs under (the network's schedule). */
  rulesVersion: number;
  /** The network's rules versions, each with the first block it runs: the genesis version from block 0, then each adopted upgrade. */
  rulesSchedule: { version: number; height: number }[];
  /** The chain-rules versions the node's release implements: it stops before a block of any other. */
  knownRulesVersions: number[];
  genesisHash: string;
  validator: Address;
  head: { height: number; hash: string; timestamp: number };
  archive: boolean;
  historyBlocks: number;
  oldestStateBlock: number;
  pendingTransactions: number;
}

export interface NodeInfo {
  version: string;
  network: string;
  chainId: string;
  /** The chain-rules version the next block runs under (the network's schedule). */
  rulesVersion: number;
  /** The chain-rules versions the node's release implements. */
  knownRulesVersions: number[];
  role: string;
  plugins: { name: string; version: string }[];
  capabilities: string[];
  peerId: string;
  /** libp2p multiaddrs other nodes can dial, each ending in `/p2p/<peerId>`. */
  listenAddresses: string[];
  operator: Address;
  synced: boolean;
}

/** A connected peer (`svc_peers`). */
export interface PeerInfo {
  peerId: string;
  addresses: string[];
  direction: 'inbound' | 'outbound';
  /** The head it last announced, if any yet. */
  head: { height: number; hash: string } | null;
}

/** `svc_syncing`: false when synced, else the sync's progress. */
export type SyncStatus = false | { startingBlock: number; currentBlock: number; highestBlock: number };

export interface FaucetGrant {
  omcMinted: string;
  ogtMinted: string;
  status: 'funded';
  txHash: string;
}

export interface FaucetStatus {
  address: Address;
  /** Whether a faucet_request from this caller for this address would be granted now. */
  eligible: boolean;
  nextEligibleAt: number | null;
  retryAfterSeconds: number;
  /** What it waits for: the address's cooldown, or this caller's grants per window. */
  waitingFor: 'cooldown' | 'client_limit' | null;
}

/** `svc_oonRegisterNode` params. `bond_ogt` may also be a decimal string. */
export interface ComputeRegistration {
  operator: string;
  capabilities: ('wasm' | 'evm')[];
  bond_ogt: number | string;
  max_concurrent_jobs: number;
}

/** `svc_ompRegisterStorageNode` params. */
export interface StorageRegistration {
  operator: string;
  storage_capacity_gb: number;
  bond_ogt: number | string;
  supported_formats: ('image' | 'video' | 'document')[];
}

/** A provider registration: pending until its bond is in a block; unbonding (with `releaseAt`) after unregistering. */
export type ProviderStatus = 'unregistered' | 'pending' | 'active' | 'unbonding';

interface RegistrationCommon {
  registered: boolean;
  status: ProviderStatus;
  operator: Address | null;
  /** Bonded OGT as a decimal string ("0" when unregistered). */
  bond_ogt: string;
  peerId: string | null;
  txHash: string | null;
  /** The unregistration transaction, once the node sent one. */
  unregisterTxHash: string | null;
  /** While unbonding: the block at which the bond returns. */
  releaseAt: number | null;
}

export interface ComputeStatus extends RegistrationCommon {
  capabilities: string[];
  max_concurrent_jobs: number;
  activeJobs: number;
  completedJobs: number;
  /** True on a `--role compute` node, which dedicates its capacity; others offer idle capacity. */
  dedicated: boolean;
}

export interface StorageStatus extends RegistrationCommon {
  storage_capacity_gb: number;
  supported_formats: string[];
  usedBytes: number;
  objects: number;
}

export interface ComputeProvider {
  operator: Address;
  peerId: string;
  capabilities: string[];
  max_concurrent_jobs: number;
  bond_ogt: string;
  registeredAt: number;
}

export interface StorageProvider {
  operator: Address;
  peerId: string;
  supported_formats: string[];
  storage_capacity_gb: number;
  bond_ogt: string;
  registeredAt: number;
}

export type JobStatus = 'queued' | 'assigned' | 'committed' | 'finalized' | 'failed' | 'expired';

/** A compute job to submit: WASI module or EVM runtime bytecode, its input, and what it may spend. */
/** A job's code: inline bytes, or the CID of a stored object with an active deal (a WASM module, or EVM bytecode as hex text). */
export type JobCode =
  | { readonly code: Uint8Array; readonly codeCid?: undefined }
  | { readonly codeCid: string; readonly code?: undefined };

/** What a run of a job needs (`estimateJob`). */
export type JobRun = JobCode & {
  readonly runtime: 'wasm' | 'evm';
  /** stdin of a WASM job, calldata of an EVM job. */
  readonly input?: Uint8Array;
  /** WASM args (argv), `["job"]` when not given. */
  readonly args?: readonly string[];
  readonly gasLimit: bigint;
};

/** A job to submit (`submitJob`). */
export type JobRequest = JobRun & {
  /** OMC base units per gas. */
  readonly gasPrice: bigint;
  /** Providers that run it: 2 compares two results. */
  readonly replicas?: 1 | 2;
};

/** `svc_oonGetJob`: amounts and gas as decimal strings of base units. */
export interface JobView {
  jobId: string;
  status: JobStatus;
  runtime: 'wasm' | 'evm';
  /** The CID of the stored object its code is; null for inline code. */
  codeCid: string | null;
  requester: string;
  replicas: number;
  providers: string[];
  gasLimit: string;
  gasPrice: string;
  gasUsed: string | null;
  fee: string | null;
  /** OMC base units held for the job now: gasLimit × gasPrice × replicas until it settles, then "0". */
  escrow: string;
  exit: string | null;
  outputHash: string | null;
  output: string | null;
  outputSize: number | null;
  reason: string | null;
  settledBy: 'agreement' | 'unchallenged' | 're-execution' | 'dev' | null;
  attempts: number;
  /** Providers that missed a deadline of this job: slashed a little, and not assigned it again. */
  missedBy: string[];
  submittedAt: number;
  assignedAt: number | null;
  finalizedAt: number | null;
  /** Deadlines: passed once a block is past both the height and the block time (unix ms). */
  commitBy: { height: number; time: number } | null;
  revealBy: { height: number; time: number } | null;
  challengeBy: { height: number; time: number } | null;
  /** A job a contract submitted (its requester): the call the chain makes back to it once the job is over, and how it went (status null until then). */
  callback: JobCallbackView | null;
}

export interface JobCallbackView {
  selector: string;
  gasLimit: string;
  status: 'success' | 'reverted' | 'out_of_gas' | 'failed' | 'no_code' | null;
  gasUsed: string | null;
  revert: string | null;
  calledAt: number | null;
  /** The call's system transaction (its receipt and logs), once made under rules that give it one. */
  hash: string | null;
}

/** `svc_oonEstimate`: one run on the node, nothing changed. */
export interface JobEstimate {
  gasUsed: string;
  exit: string;
  outputHash: string;
  outputSize: number;
  output: string;
}

/** `PUT /omp/objects`: what a storage node stored (the commitment root its deals name). */
export interface UploadedObject {
  readonly cid: string;
  readonly size: number;
  readonly mediaType: string;
  readonly format: 'image' | 'video' | 'document';
  readonly root: string;
}

/** What `createDeal` asks the chain for: the uploaded object, replicas, the term and the price per replica. */
export interface DealRequest {
  readonly object: UploadedObject;
  /** The provider the object was uploaded to (the first replica). */
  readonly provider: string;
  readonly replicas: number;
  readonly durationBlocks: number;
  /** OMC base units per replica for the whole term. */
  readonly price: bigint;
}

/** `svc_ompGetDeal`: amounts as decimal strings of base units. */
export interface DealView {
  readonly dealId: string;
  readonly status: 'pending' | 'active' | 'closed' | 'failed';
  readonly reason: string | null;
  readonly cid: string;
  readonly size: number;
  readonly format: string;
  readonly mediaType: string;
  readonly client: string;
  readonly replicas: number;
  readonly providers: {
    readonly provider: string;
    readonly acceptedAt: number | null;
    readonly lastProof: number | null;
    readonly faults: number;
    readonly faulty: boolean;
    readonly paid: string;
    readonly challenge: { readonly period: number; readonly issuedAt: number; readonly indexes: number[] } | null;
  }[];
  readonly durationBlocks: number;
  readonly createdAt: number;
  readonly acceptBy: { readonly height: number; readonly time: number };
  readonly startBlock: number | null;
  readonly endBlock: number | null;
  readonly price: string;
  readonly escrow: string;
  readonly paid: string;
  readonly lastProof: number | null;
  readonly faults: number;
}

/** `svc_ompGetObject`: an object as the chain knows it from its deals. */
export interface ObjectView {
  readonly cid: string;
  readonly size: number;
  readonly mediaType: string;
  readonly format: string;
  readonly deals: string[];
  readonly providers: string[];
}

/** `svc_validators`: the validator set in force at the head. Power in OGT. */
export interface ValidatorSetView {
  height: number;
  epochBlocks: number;
  nextChangeAt: number;
  totalPower: string;
  nextProposer: string;
  validators: {
    operator: string;
    consensusKey: string;
    moniker: string | null;
    power: string;
    proposerPriority: string;
    status: 'pending' | 'active' | 'unbonding' | 'jailed' | 'tombstoned';
    genesis: boolean;
  }[];
}

/** `svc_getUpgradePlan`: the plan pending, else the last adopted (stakes in OGT). */
export interface UpgradePlanView {
  planId: number;
  name: string;
  /** The chain-rules version the plan runs. */
  version: number;
  /** The first block that runs it. */
  height: number;
  proposer: Address;
  proposedAt: number;
  /** Operators of the validators that approved it. */
  approvals: Address[];
  /** The power of its approvals (pending: now; adopted: when adopted), and of the whole set. */
  approvedStake: string;
  bondedStake: string;
  adopted: boolean;
  adoptedAt: number | null;
}

/** `svc_stakingStatus`: a validator's staking record. Stake in OGT. */
export interface StakingStatus {
  operator: string;
  consensusKey: string;
  moniker: string;
  /** OGT (0 for the genesis validator, in the set without a stake). */
  stake: string;
  /** jailed: out of the set for missing blocks until it unjails; tombstoned: double-signed, out for good. */
  status: 'pending' | 'active' | 'unbonding' | 'jailed' | 'tombstoned';
  inSet: boolean;
  genesis: boolean;
  createdAt: number;
  joinedAt: number | null;
  releaseAt: number | null;
  /** Jailed: the block from which `unjail` is accepted. */
  jailedUntil: number | null;
  tombstonedAt: number | null;
  /** Certificates missing its precommit within the liveness window. */
  missedBlocks: number;
  livenessWindow: number;
  maxMissedBlocks: number;
}

/** What `createValidator` signs: the consensus key (0x hex; the signer's own public key when omitted), the stake in OGT base units, a name. */
export interface ValidatorRequest {
  readonly stake: bigint;
  readonly moniker: string;
  readonly consensusKey?: string;
}

/** `svc_consensusState`: where consensus stands, on any node (a validator node adds its mode and round). */
export interface ConsensusStateView {
  /** observer: a node without the validator role. */
  mode: 'observer' | 'producing' | 'consensus' | 'following' | 'refused';
  /** The height being decided (the head + 1). */
  height: number;
  round?: number;
  step?: 'propose' | 'prevote' | 'precommit';
  lockedRound?: number;
  validRound?: number;
  /** OGT. */
  prevotePower?: string;
  precommitPower?: string;
  onlinePower?: string;
  totalPower?: string;
  /** The head's certificate as this node holds it (null at block 0). */
  lastCommit: {
    height: number;
    round: number;
    signers: number;
    signedPower: string;
    totalPower: string;
    ageMs: number;
  } | null;
}

/** A validator's signed consensus vote, as evidence of equivocation carries it. */
export interface SignedVoteView {
  type: 'prevote' | 'precommit';
  height: number;
  round: number;
  /** The block hash voted for, or null (nil). */
  value: string | null;
  validator: string;
  /** Its consensus-key Ed25519 signature, 0x hex. */
  signature: string;
}
