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
  transactions: string[];
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
}

export interface ChainInfo {
  network: string;
  chainId: string;
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
  eligible: boolean;
  nextEligibleAt: number | null;
  retryAfterSeconds: number;
}

