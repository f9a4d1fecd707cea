import type { TypedTransaction } from '@ethereumjs/tx';
import { accountAddress, hexOfAddress, type Address } from '../../../sdk/address.js';
import { fromHex, toHex } from '../../../sdk/bytes.js';
import { domainError, isRpcError } from '../../../sdk/errors.js';
import type { ChainViews } from '../../../chain/capabilities.js';
import type { Block } from '../../../chain/schemas.js';
import { accountKey, decodeAccount } from '../../../chain/state/accounts.js';
import { submitFromClient } from '../../../chain/client-submit.js';
import {
  ETHEREUM_KIND,
  isEthereumEnvelope,
  parseEthereumTransaction,
  type EthereumPayload,
} from '../../../chain/ethereum-envelope.js';
import { DEV_IMPERSONATED_KIND, impersonatedSender, type DevImpersonated } from '../dev-edits.js';
import type { Receipt } from '../../../chain/receipts.js';
import { decodeStored } from '../../../chain/decode-verified.js';
import type { EvmService } from '../service.js';
import type { AccessListEntry, CallRequest, EvmOutcome } from '../runner.js';
import { AccessListTracer } from '../trace/access-list-tracer.js';
import type { BlockEnv } from '../../../chain/contract.js';
import { blockEnvOf } from '../../../chain/block-env.js';
import type { StateRead } from '../state-manager.js';
import { codeKey, contractKey, decodeContract, storageKey } from '../state.js';
import { blockAt, heightOf, stateHeight, type BlockParam } from './block-tag.js';
import {
  ETH_VISIBLE_KINDS,
  ethLogs,
  gasOf,
  type EthBlockEntry,
  type EthBlockIndex,
  type IndexedLog,
} from './block-index.js';
import { EthRpcError, ethereumError, revertError } from './errors.js';
import { blockView, logView, receiptView, systemTransactionView, transactionView, type TxLocation } from './views.js';
import {
  decodeSystemTransaction,
  isSystemRaw,
  SYSTEM_TX_TYPE,
  type SystemTransaction,
} from '../../../chain/system-transactions.js';

/** A mined transaction `eth_` views show: an Ethereum one (or an impersonated send), or a system transaction. */
type MinedTransaction =
  | { readonly tx: TypedTransaction; readonly from: string; readonly height: number }
  | { readonly system: SystemTransaction; readonly from: string; readonly height: number };
import { qty, type Quantity } from './quantity.js';
import { withOverrides, type StateOverrides } from './state-overrides.js';
import { TraceAbortedError, type Tracer } from '../trace/tracer.js';
import { EvmDeadlineError } from '../run-control.js';

/** A call object as tools send it (`eth_call`, `eth_estimateGas`): every field optional. */
export interface EthCallObject {
  readonly from?: string;
  readonly to?: string | null;
  readonly gas?: string;
  readonly gasPrice?: string;
  readonly maxFeePerGas?: string;
  readonly maxPriorityFeePerGas?: string;
  readonly value?: string;
  readonly data?: string;
  readonly input?: string;
  readonly nonce?: string;
  readonly accessList?: readonly { readonly address: string; readonly storageKeys: readonly string[] }[];
}

/** A log filter (`eth_getLogs`, `eth_newFilter`, the `logs` subscription). */
export interface LogFilter {
  readonly fromBlock?: string;
  readonly toBlock?: string;
  readonly blockHash?: string;
  readonly address?: string | readonly string[];
  readonly topics?: readonly (string | null | readonly string[])[];
}

/** How `svc_getLogs` shows a log (svc1 addresses, numbers as numbers). */
export type SvcLogView = (
  log: IndexedLog,
  logIndex: number,
  block: { hash: string; height: number },
  transactionHash: string,
) => Record<string, unknown>;

/** The most blocks one `eth_getLogs` may span, and the most logs it may return. */
export const LOGS_BLOCK_RANGE = 10_000;
export const LOGS_MAX_RESULTS = 10_000;

const ZERO_ADDRESS: Address = `svc1${'00'.repeat(20)}`;

/** Whether a log passes a filter's addresses and topics. */
export function logMatches(log: IndexedLog, filter: Pick<LogFilter, 'address' | 'topics'>): boolean {
  const [, address, topics] = log;
  if (filter.address !== undefined) {
    const wanted = (Array.isArray(filter.address) ? filter.address : [filter.address]) as string[];
    if (wanted.length > 0 && !wanted.some((a) => a.toLowerCase() === address)) return false;
  }
  const conditions = filter.topics ?? [];
  for (let i = 0; i < conditions.length; i++) {
    const condition = conditions[i];
    if (condition === null || condition === undefined) continue;
    const topic = topics[i];
    if (topic === undefined) return false;
    const options = (Array.isArray(condition) ? condition : [condition]) as string[];
    if (options.length > 0 && !options.some((t) => t.toLowerCase() === topic)) return false;
  }
  return true;
}

/**
 * The Ethereum JSON-RPC's answers over the chain and the EVM: state at any block in the history
 * window, calls and estimates, submission, and the `eth_` views of blocks, transactions, receipts
 * and logs (Ethereum transactions only: native ones are the `svc_` methods').
 */
export class EthApi {
  constructor(
    private readonly evm: EvmService,
    readonly index: EthBlockIndex,
  ) {}

  private get chain(): ChainViews {
    return this.evm.chain;
  }

  chainId(): Quantity {
    return qty(this.evm.params.chainId);
  }

  /** A reader of the state after block `height` (the head from memory, older blocks from history). */
  reader(height: number): StateRead {
    if (height === this.chain.head.height) return (key) => this.chain.state.get(key);
    return this.chain.stateAt(height);
  }

  async balance(address: string, block: BlockParam | undefined): Promise<Quantity> {
    const read = this.reader(await stateHeight(this.chain, block));
    return qty(decodeAccount(await read(accountKey(accountAddress(address)))).omc);
  }

  async transactionCount(address: string, block: BlockParam | undefined): Promise<Quantity> {
    // "pending" counts what the mempool holds: consecutive nonces sent back to back are all taken.
    if (block === 'pending') return qty(this.chain.nextNonce(accountAddress(address)));
    const read = this.reader(await stateHeight(this.chain, block));
    return qty(decodeAccount(await read(accountKey(accountAddress(address)))).nonce);
  }

  async code(address: string, block: BlockParam | undefined): Promise<string> {
    return toHex(await codeAt(this.reader(await stateHeight(this.chain, block)), accountAddress(address)));
  }

  async storageAt(address: string, slot: string, block: BlockParam | undefined): Promise<string> {
    const read = this.reader(await stateHeight(this.chain, block));
    const key = BigInt(slot).toString(16).padStart(64, '0');
    const value = (await read(storageKey(accountAddress(address).slice(4), key))) ?? new Uint8Array(0);
    return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`;
  }

  /** The block a call runs in: the one it names, as it was (its number, time and proposer). */
  async env(height: number): Promise<BlockEnv> {
    return blockEnvOf((await blockAt(this.chain, height))!, this.chain.rulesVersionAt(height));
  }

  private request(call: EthCallObject, gasCap: number): CallRequest {
    const gas = call.gas === undefined ? BigInt(gasCap) : BigInt(call.gas);
    const feeCap = BigInt(call.maxFeePerGas ?? call.gasPrice ?? '0');
    return {
      from: call.from ? accountAddress(call.from) : ZERO_ADDRESS,
      ...(call.to ? { to: accountAddress(call.to) } : {}),
      data: fromHex(call.input ?? call.data ?? '0x'),
      value: BigInt(call.value ?? '0'),
      gasLimit: gas,
      maxFeePerGas: feeCap,
      maxPriorityFeePerGas: BigInt(call.maxPriorityFeePerGas ?? '0'),
      ...(call.nonce !== undefined ? { nonce: BigInt(call.nonce) } : {}),
      ...(call.accessList
        ? {
            accessList: call.accessList.map(({ address, storageKeys }) => ({
              address: address.toLowerCase(),
              storageKeys,
            })),
          }
        : {}),
    };
  }

  /** Runs a call on a block's state; answers as tools expect a revert (code 3) or another halt (-32000). */
  /** A call's outcome; it may run `budgetMs` (default: the node's call budget), then fails with geth's "execution aborted". */
  async simulate(
    call: EthCallObject,
    block: BlockParam | undefined,
    overrides?: StateOverrides,
    budgetMs?: number,
  ): Promise<EvmOutcome> {
    return (await this.simulateTraced(call, block, undefined, overrides, budgetMs)).outcome;
  }

  /** The state of the block a call runs on (what a prestate trace reads). */
  async stateBefore(block: BlockParam | undefined): Promise<(key: string) => Promise<Uint8Array | undefined>> {
    return this.chain.stateAt(await stateHeight(this.chain, block));
  }

  /** A call as `simulate` runs it, with a tracer attached (debug_traceCall), and the request it made of the call object. */
  async simulateTraced(
    call: EthCallObject,
    block: BlockParam | undefined,
    tracer: Tracer | undefined,
    overrides?: StateOverrides,
    budgetMs?: number,
  ): Promise<{ outcome: EvmOutcome; request: CallRequest }> {
    const height = await stateHeight(this.chain, block);
    const read = await withOverrides(this.reader(height), overrides).catch((error: Error) => {
      throw new EthRpcError(-32602, `invalid state override: ${error.message}`);
    });
    const cap = this.evm.callGasCap;
    const env = await this.env(height);
    const request = this.request(call, cap);
    const outcome = await this.evm.runner.call(request, read, env, cap, tracer, budgetMs).catch((error: unknown) => {
      if (isRpcError(error) || error instanceof TraceAbortedError) throw error;
      // runTx's refusals (a fee cap below the base fee, funds for a call with a price): geth's -32000.
      throw new EthRpcError(-32000, (error as Error).message.split('\n')[0]!.replace(/ \(vm hf=.*$/, ''));
    });
    return { outcome, request };
  }

  /**
   * geth's `eth_createAccessList`: the accounts and slots the call touches (but its sender, its
   * recipient, a contract it creates and the precompiles), and the gas it uses with that list.
   */
  async createAccessList(
    call: EthCallObject,
    block: BlockParam | undefined,
  ): Promise<{ accessList: AccessListEntry[]; gasUsed: Quantity; error?: string }> {
    const skip = new Set<string>();
    const precompiles = new Set(this.evm.runner.precompiles.map((p) => p.spec.address.toLowerCase()));
    const tracer = new AccessListTracer(
      (address) => skip.has(address) || precompiles.has(address) || isEthereumPrecompile(address),
    );
    const { outcome, request } = await this.simulateTraced(call, block, tracer);
    skip.add(hexOfAddress(request.from));
    if (request.to) skip.add(hexOfAddress(request.to));
    if (outcome.result.createdAddress) skip.add(outcome.result.createdAddress.toString().toLowerCase());
    const accessList = tracer.accessList;
    const withList = await this.simulate({ ...call, accessList }, block);
    return {
      accessList,
      gasUsed: qty(withList.gasUsed),
      ...(withList.failure ? { error: withList.failure.reason } : {}),
    };
  }

  async call(call: EthCallObject, block: BlockParam | undefined, overrides?: StateOverrides): Promise<string> {
    const outcome = await this.simulate(call, block, overrides);
    if (outcome.failure?.name === 'execution_reverted') throw revertError(outcome.result.execResult.returnValue);
    if (outcome.failure) throw new EthRpcError(-32000, outcome.failure.reason);
    return toHex(outcome.result.execResult.returnValue);
  }

  /**
   * The least gas limit with which the call succeeds: one run at the cap, which shows it when the call
   * read no gas (gas-probe.ts); else as geth finds it: one run at what that run used (with its refund
   * and the 63/64 rule's margin), then a binary search between.
   */
  async estimateGas(call: EthCallObject, block: BlockParam | undefined): Promise<Quantity> {
    const cap = call.gas === undefined ? BigInt(this.evm.callGasCap) : BigInt(call.gas);
    // One budget for the whole search, as for one call: an estimate runs the call a dozen times.
    const budget = this.evm.runner.callBudgetMs;
    const deadline = performance.now() + budget;
    const run = (gas: bigint) => {
      const left = deadline - performance.now();
      if (left <= 0) throw new EthRpcError(-32000, new EvmDeadlineError(budget).message);
      return this.simulate({ ...call, gas: qty(gas) }, block, undefined, left);
    };
    const first = await run(cap);
    if (first.failure?.name === 'execution_reverted') throw revertError(first.result.execResult.returnValue);
    if (first.failure)
      throw new EthRpcError(
        -32000,
        first.failure.name === 'out_of_gas' ? `gas required exceeds allowance (${cap})` : first.failure.reason,
      );
    // A run that read no gas shows its least limit itself (plain sends, most token transfers): no second run.
    if (first.gasNeed !== undefined) return qty(first.gasNeed);
    // What it used is often exactly what it needs; else it needs more (refunds, the 63/64 rule).
    if (BigInt(first.gasUsed) < cap && !(await run(BigInt(first.gasUsed))).failure) return qty(first.gasUsed);
    let lo = BigInt(first.gasUsed);
    let hi = cap;
    const optimistic = ((BigInt(first.gasUsed) + first.result.gasRefund + 2300n) * 64n) / 63n;
    if (optimistic < hi) {
      if (!(await run(optimistic)).failure) hi = optimistic;
      else lo = optimistic;
    }
    // Stop within 1.5% of the answer, as geth does: the last runs would cost more than the gas they save.
    while (hi - lo > 1n && (hi - lo) * 1000n > hi * 15n) {
      const mid = (hi + lo) / 2n;
      if ((await run(mid)).failure) lo = mid;
      else hi = mid;
    }
    return qty(hi);
  }

  async sendRaw(hex: string): Promise<string> {
    const bytes = fromHex(hex);
    if (!isEthereumEnvelope(bytes))
      throw new EthRpcError(-32000, 'not an Ethereum transaction: native transactions go to svc_sendRawTransaction');
    try {
      const tx = await submitFromClient(this.chain, this.chain, bytes, (decoded) => {
        if (decoded.kind !== ETHEREUM_KIND)
          throw domainError('invalid_transaction', 'eth_sendRawTransaction takes Ethereum transactions');
      });
      return tx.hash;
    } catch (error) {
      throw ethereumError(error);
    }
  }

  /**
   * An Ethereum transaction of the chain, with its sender (from its receipt when it has one: no
   * signature recovery), or one of its system transactions.
   */
  private async mined(hash: string, known?: Pick<Receipt, 'from'>): Promise<MinedTransaction | undefined> {
    const stored = await this.chain.getRawTransaction(hash);
    if (!stored) return undefined;
    if (isSystemRaw(stored.raw)) {
      const system = decodeSystemTransaction(stored.raw);
      return { system, from: system.from, height: stored.height };
    }
    if (!isEthereumEnvelope(stored.raw)) {
      // Dev mode's impersonated transactions are Ethereum transactions of the account they run as.
      const signed = decodeStored(stored.raw, this.chain.envelope);
      if (signed.kind !== DEV_IMPERSONATED_KIND) return undefined;
      return {
        tx: this.evm.transactionOf(signed)!,
        from: impersonatedSender(signed.payload as unknown as DevImpersonated),
        height: stored.height,
      };
    }
    const receipt = known ?? (await this.chain.getReceipt(hash));
    const from = receipt?.from ?? decodeStored(stored.raw, this.chain.envelope).from;
    return { tx: parseEthereumTransaction(stored.raw, this.evm.params.chainId), from, height: stored.height };
  }

  async transactionByHash(rawHash: string): Promise<Record<string, unknown> | null> {
    const hash = rawHash.toLowerCase();
    const pending = this.chain.pendingTransaction(hash);
    if (pending) {
      if (pending.kind === ETHEREUM_KIND)
        return transactionView(
          this.evm.ethereumTx(pending.payload as EthereumPayload),
          pending.from,
          hash,
          undefined,
          this.evm.params.baseFee,
        );
      if (pending.kind === DEV_IMPERSONATED_KIND)
        return transactionView(
          this.evm.transactionOf(pending)!,
          impersonatedSender(pending.payload as unknown as DevImpersonated),
          hash,
          undefined,
          this.evm.params.baseFee,
        );
      return null;
    }
    const found = await this.mined(hash);
    if (!found) return null;
    const [block, entry] = await Promise.all([blockAt(this.chain, found.height), this.index.get(found.height)]);
    return this.minedView(found, hash, {
      blockHash: block!.hash,
      blockNumber: found.height,
      transactionIndex: entry.transactions.indexOf(hash),
    });
  }

  private minedView(found: MinedTransaction, hash: string, location: TxLocation): Record<string, unknown> {
    if ('system' in found) return systemTransactionView(found.system, location, this.evm.params.chainId);
    return transactionView(found.tx, found.from, hash, location, this.evm.params.baseFee);
  }

  async receipt(rawHash: string): Promise<Record<string, unknown> | null> {
    const hash = rawHash.toLowerCase();
    const receipt = await this.chain.receiptOrPruned(hash);
    if (receipt === 'pruned') {
      throw domainError(
        'pruned',
        `the receipt of ${hash} is in a block older than this node's history window; ask an archive node`,
        { oldest: this.chain.state.oldestAvailable(this.chain.head.height) },
      );
    }
    if (!receipt || !ETH_VISIBLE_KINDS.has(receipt.kind)) return null;
    const found = await this.mined(hash, receipt);
    if (!found) return null;
    const target =
      'system' in found
        ? { to: hexOfAddress(found.system.to), type: SYSTEM_TX_TYPE }
        : { to: found.tx.to ? found.tx.to.toString() : null, type: found.tx.type };
    return receiptView(
      { ...receipt, from: found.from as Receipt['from'] },
      target,
      await this.index.get(receipt.blockNumber),
    );
  }

  async blockByHeight(height: number | undefined, full: boolean): Promise<Record<string, unknown> | null> {
    if (height === undefined) return null;
    const block = await blockAt(this.chain, height);
    return block ? this.blockOf(block, full) : null;
  }

  async blockByHash(hash: string, full: boolean): Promise<Record<string, unknown> | null> {
    const block = await this.chain.getBlockByHash(hash.toLowerCase());
    return block ? this.blockOf(block, full) : null;
  }

  private async blockOf(block: Block, full: boolean): Promise<Record<string, unknown>> {
    const entry = await this.index.get(block.height);
    const transactions = full
      ? await Promise.all(
          entry.transactions.map(async (hash, i) =>
            this.minedView((await this.mined(hash))!, hash, {
              blockHash: block.hash,
              blockNumber: block.height,
              transactionIndex: i,
            }),
          ),
        )
      : entry.transactions;
    return blockView(block, entry, this.evm.params, transactions);
  }

  /** geth's `eth_getBlockReceipts`: a block by number, tag or hash (a 32-byte hex string). */
  async blockReceipts(block: BlockParam | string): Promise<Record<string, unknown>[] | null> {
    const byHash = typeof block === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block);
    const height = byHash ? undefined : await heightOf(this.chain, block as BlockParam);
    const found = byHash
      ? await this.chain.getBlockByHash(block.toLowerCase())
      : height === undefined
        ? undefined
        : await blockAt(this.chain, height);
    if (!found) return null;
    const entry = await this.index.get(found.height);
    const receipts = await Promise.all(entry.transactions.map((hash) => this.receipt(hash)));
    return receipts.filter((receipt): receipt is Record<string, unknown> => receipt !== null);
  }

  /** The hashes `eth_` views list for a block (its Ethereum and system transactions). */
  async blockTransactions(height: number): Promise<readonly string[]> {
    return (await this.index.get(height)).transactions;
  }

  /** The height of the block with this hash, or undefined. */
  async blockNumberOfHash(hash: string): Promise<number | undefined> {
    return (await this.chain.getBlockByHash(hash.toLowerCase()))?.height;
  }

  async transactionCountOf(height: number | undefined): Promise<Quantity | null> {
    if (height === undefined) return null;
    return qty((await this.index.get(height)).transactions.length);
  }

  /** The height a state query names (geth's "header not found" for a block not made yet). */
  stateHeightOf(block: BlockParam | undefined): Promise<number> {
    return stateHeight(this.chain, block);
  }

  async heightOf(block: BlockParam | undefined): Promise<number | undefined> {
    return heightOf(this.chain, block);
  }

  /** The range a filter spans, checked against the cap; `blockHash` names one block. */
  async range(filter: LogFilter): Promise<{ from: number; to: number } | undefined> {
    if (filter.blockHash !== undefined) {
      if (filter.fromBlock !== undefined || filter.toBlock !== undefined)
        throw new EthRpcError(-32602, 'invalid params: give blockHash or fromBlock/toBlock, not both');
      const block = await this.chain.getBlockByHash(filter.blockHash.toLowerCase());
      if (!block) throw new EthRpcError(-32000, 'unknown block');
      return { from: block.height, to: block.height };
    }
    // The cap judges the range asked for; what lies past the head is simply not there yet.
    const asked = async (tag: string): Promise<number> =>
      /^0x[0-9a-fA-F]+$/.test(tag)
        ? Number(BigInt(tag))
        : ((await heightOf(this.chain, tag as BlockParam)) ?? this.chain.head.height);
    const from = await asked(filter.fromBlock ?? 'latest');
    const wanted = await asked(filter.toBlock ?? 'latest');
    if (wanted - from + 1 > LOGS_BLOCK_RANGE)
      throw new EthRpcError(-32005, `query exceeds max block range ${LOGS_BLOCK_RANGE}`);
    const to = Math.min(wanted, this.chain.head.height);
    if (from > to) return undefined;
    return { from, to };
  }

  /**
   * The logs of blocks `from`..`to` that pass the filter, in order: those of Ethereum transactions
   * (`eth_`), or every EVM log with the view `svc` gives (`svc_getLogs`, native transactions' too).
   */
  async logsIn(from: number, to: number, filter: LogFilter, svc?: SvcLogView): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const [height, entry] of this.index.range(from, to)) {
      let hash: string | undefined;
      const logs = svc ? entry.logs : ethLogs(entry);
      for (let i = 0; i < logs.length; i++) {
        const log = logs[i]!;
        if (!logMatches(log, filter)) continue;
        if (out.length >= LOGS_MAX_RESULTS)
          throw new EthRpcError(-32005, `query returned more than ${LOGS_MAX_RESULTS} results`);
        hash ??= (await blockAt(this.chain, height))!.hash;
        out.push(
          svc
            ? svc(log, i, { hash, height }, log[4] ?? entry.transactions[log[0]]!)
            : logView(log, i, { hash, height }, entry.transactions[log[0]]!),
        );
      }
    }
    return out;
  }

  async logs(filter: LogFilter, svc?: SvcLogView): Promise<Record<string, unknown>[]> {
    const range = await this.range(filter);
    return range ? this.logsIn(range.from, range.to, filter, svc) : [];
  }

  /** Fee history: the base fee is fixed, so is every block's; rewards are the priority fees asked (none on a devnet). */
  async feeHistory(
    count: number,
    newest: BlockParam,
    percentiles: readonly number[] | undefined,
  ): Promise<Record<string, unknown>> {
    const last = await stateHeight(this.chain, newest);
    const blocks = Math.max(1, Math.min(count, 1024, last + 1));
    const oldest = last - blocks + 1;
    const entries: EthBlockEntry[] = [];
    for (let height = oldest; height <= last; height++) entries.push(await this.index.get(height));
    const baseFee = qty(this.evm.params.baseFee);
    return {
      oldestBlock: qty(oldest),
      baseFeePerGas: Array.from({ length: blocks + 1 }, () => baseFee),
      gasUsedRatio: entries.map((entry) => gasOf(entry) / Number(this.evm.params.blockGasLimit)),
      baseFeePerBlobGas: Array.from({ length: blocks + 1 }, () => '0x0'),
      blobGasUsedRatio: entries.map(() => 0),
      ...(percentiles ? { reward: entries.map(() => percentiles.map(() => '0x0')) } : {}),
    };
  }
}

/** An account's code in a state (empty for an account without). */
export async function codeAt(read: StateRead, address: Address): Promise<Uint8Array> {
  const contract = decodeContract(await read(contractKey(address.slice(4))));
  if (!contract) return new Uint8Array(0);
  return (await read(codeKey(toHex(contract.codeHash).slice(2)))) ?? new Uint8Array(0);
}

/** Ethereum's own precompiles at Osaka: 0x01 to 0x11, and P256VERIFY at 0x100. */
function isEthereumPrecompile(address: string): boolean {
  if (!/^0x0{36}[0-9a-f]{4}$/.test(address)) return false;
  const n = Number.parseInt(address.slice(-4), 16);
  return (n >= 1 && n <= 0x11) || n === 0x100;
}
