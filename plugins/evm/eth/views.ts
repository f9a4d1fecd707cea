import type { TypedTransaction } from '@ethereumjs/tx';
import { fromHex, toHex } from '../../../sdk/bytes.js';
import type { Block } from '../../../chain/schemas.js';
import type { Receipt } from '../../../chain/receipts.js';
import { effectiveGasPrice } from '../runner.js';
import type { EvmParams } from '../params.js';
import { ethLogs, gasOf, type EthBlockEntry, type IndexedLog } from './block-index.js';
import { qty } from './quantity.js';
import { hexOfAddress } from '../../../sdk/address.js';
import { SYSTEM_TX_TYPE, type SystemTransaction } from '../../../chain/system-transactions.js';

/** Keccak-256 of the RLP of an empty list: the uncle hash of a block without uncles. */
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
/** The root of an empty Merkle-Patricia trie (no withdrawals). */
const EMPTY_TRIE = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const ZERO32 = `0x${'00'.repeat(32)}`;

/**
 * @ethereumjs/vm's Bloom, loaded by its own module's URL: the package's entry would load the whole VM,
 * which the node loads only at its first EVM run (engine.ts), while block views need only this.
 */
const { Bloom } = (await import(new URL('./bloom/index.js', import.meta.resolve('@ethereumjs/vm')).href)) as {
  Bloom: typeof import('@ethereumjs/vm').Bloom;
};

/** A block's logs bloom (EIP-1559-era headers carry it; clients use it to skip blocks). */
function bloomOf(logs: readonly { address: string; topics: readonly string[] }[]): string {
  const bloom = new Bloom();
  for (const log of logs) {
    bloom.add(fromHex(log.address));
    for (const topic of log.topics) bloom.add(fromHex(topic));
  }
  return toHex(bloom.bitvector);
}

/** Where a mined transaction is, as `eth_` views say it. */
export interface TxLocation {
  readonly blockHash: string;
  readonly blockNumber: number;
  /** Its position among the block's Ethereum transactions. */
  readonly transactionIndex: number;
}

/** An Ethereum transaction as `eth_getTransactionByHash` and full block views show it. */
export function transactionView(
  tx: TypedTransaction,
  from: string,
  hash: string,
  location: TxLocation | undefined,
  baseFee: bigint,
): Record<string, unknown> {
  const json = tx.toJSON() as Record<string, unknown>;
  const typed = tx.type !== 0;
  const view: Record<string, unknown> = {
    blockHash: location?.blockHash ?? null,
    blockNumber: location ? qty(location.blockNumber) : null,
    transactionIndex: location ? qty(location.transactionIndex) : null,
    hash,
    from: hexOfAddress(from),
    to: tx.to ? tx.to.toString() : null,
    nonce: qty(tx.nonce),
    value: qty(tx.value),
    gas: qty(tx.gasLimit),
    input: toHex(tx.data),
    type: qty(tx.type),
    // A mined EIP-1559 transaction shows what it paid per gas; a pending one its fee cap.
    gasPrice: qty(location ? effectiveGasPrice(tx, baseFee) : 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice),
    chainId: qty(tx.common.chainId()),
    v: qty(tx.v ?? 0n),
    r: qty(tx.r ?? 0n),
    s: qty(tx.s ?? 0n),
  };
  if ('maxFeePerGas' in tx) {
    view.maxFeePerGas = qty(tx.maxFeePerGas);
    view.maxPriorityFeePerGas = qty(tx.maxPriorityFeePerGas);
  }
  if (typed) {
    view.accessList = json.accessList ?? [];
    view.yParity = qty(tx.v ?? 0n);
  }
  return view;
}

/**
 * A system transaction (a callback the chain made) as `eth_` views show a transaction: type 0x7d,
 * from the precompile's address, no value, fees or signature (as OP Stack shows its deposits).
 */
export function systemTransactionView(
  tx: SystemTransaction,
  location: TxLocation,
  chainId: number,
): Record<string, unknown> {
  return {
    blockHash: location.blockHash,
    blockNumber: qty(location.blockNumber),
    transactionIndex: qty(location.transactionIndex),
    hash: tx.hash,
    from: hexOfAddress(tx.from),
    to: hexOfAddress(tx.to),
    nonce: '0x0',
    value: '0x0',
    gas: qty(tx.gasLimit),
    input: toHex(tx.data),
    type: qty(SYSTEM_TX_TYPE),
    gasPrice: '0x0',
    chainId: qty(chainId),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
}

/** What a receipt view needs of its transaction: whom it called, and its type. */
export interface ReceiptTarget {
  readonly to: string | null;
  readonly type: number;
}

/** A log as `eth_getLogs`, receipts and subscriptions show it; `logIndex` counts the block's Ethereum logs. */
export function logView(
  log: IndexedLog,
  logIndex: number,
  block: { hash: string; height: number },
  transactionHash: string,
): Record<string, unknown> {
  const [txPosition, address, topics, data] = log;
  return {
    address,
    topics,
    data,
    blockNumber: qty(block.height),
    blockHash: block.hash,
    transactionHash,
    transactionIndex: qty(txPosition),
    logIndex: qty(logIndex),
    removed: false,
  };
}

/** An Ethereum transaction's receipt, from the chain's receipt and the block's index entry. */
export function receiptView(receipt: Receipt, tx: ReceiptTarget, entry: EthBlockEntry): Record<string, unknown> {
  const position = entry.transactions.indexOf(receipt.transactionHash);
  const block = { hash: receipt.blockHash, height: receipt.blockNumber };
  const logs = ethLogs(entry).flatMap((log, i) =>
    log[0] === position ? [logView(log, i, block, receipt.transactionHash)] : [],
  );
  return {
    transactionHash: receipt.transactionHash,
    transactionIndex: qty(position),
    blockHash: receipt.blockHash,
    blockNumber: qty(receipt.blockNumber),
    from: hexOfAddress(receipt.from),
    to: tx.to,
    cumulativeGasUsed: qty(gasOf(entry, position)),
    gasUsed: qty(receipt.gasUsed ?? 0),
    contractAddress: receipt.contractAddress ? hexOfAddress(receipt.contractAddress) : null,
    logs,
    logsBloom: bloomOf((receipt.logs ?? []).map((log) => ({ address: hexOfAddress(log.address), topics: log.topics }))),
    type: qty(tx.type),
    status: receipt.status === 'success' ? '0x1' : '0x0',
    effectiveGasPrice: qty(BigInt(receipt.effectiveGasPrice ?? '0')),
  };
}

/**
 * A block as `eth_getBlockBy*` shows it: Ethereum's header fields with the chain's values where it
 * has them (its hash, parent, roots, proposer as `miner`, time in seconds) and fixed ones where the
 * chain has none (no uncles, no proof of work, no withdrawals or blobs). `transactions` lists its
 * Ethereum transactions only (hashes, or the views `full` asks for).
 */
/**
 * A block as Ethereum's clients show it. Its gas limit, base fee and coinbase are the EVM's parameters
 * as they stand (`params`): dev mode alone changes them, and a block before such a change shows the new ones.
 */
export function blockView(
  block: Omit<Block, 'transactions'>,
  entry: EthBlockEntry,
  params: Pick<EvmParams, 'blockGasLimit' | 'baseFee' | 'coinbase'>,
  transactions: readonly unknown[],
): Record<string, unknown> {
  const { blockGasLimit: gasLimit, baseFee } = params;
  return {
    number: qty(block.height),
    hash: block.hash,
    parentHash: block.parentHash,
    nonce: '0x0000000000000000',
    sha3Uncles: EMPTY_UNCLES,
    logsBloom: bloomOf(ethLogs(entry).map(([, address, topics]) => ({ address, topics }))),
    transactionsRoot: block.txRoot,
    stateRoot: block.stateRoot,
    receiptsRoot: block.receiptRoot,
    miner: hexOfAddress(params.coinbase ?? block.proposer),
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: qty(600 + entry.transactions.length * 150),
    gasLimit: qty(gasLimit),
    gasUsed: qty(gasOf(entry)),
    timestamp: qty(Math.floor(block.timestamp / 1000)),
    transactions,
    uncles: [],
    baseFeePerGas: qty(baseFee),
    mixHash: block.height === 0 ? ZERO32 : block.parentHash,
    withdrawals: [],
    withdrawalsRoot: EMPTY_TRIE,
    blobGasUsed: '0x0',
    excessBlobGas: '0x0',
    parentBeaconBlockRoot: ZERO32,
  };
}
