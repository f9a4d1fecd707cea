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
  operator: Address;
  synced: boolean;
}

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

