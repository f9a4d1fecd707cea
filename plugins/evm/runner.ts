import type { Block as EvmBlock } from '@ethereumjs/block';
import type { Common, Hardfork } from '@ethereumjs/common';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Address as EvmAddress } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import type { Address } from '../../sdk/address.js';
import { fromHex, toHex } from '../../sdk/bytes.js';
import type { Log, ReceiptDetails } from '../../chain/receipts.js';
import type { BlockEnv } from '../../chain/contract.js';
import { EVM_HARDFORK, evmCommon, transactionCommon } from '../../chain/ethereum-envelope.js';
import { WorldStateManager, type CreationContext, type StateRead, type StateSink } from './state-manager.js';
import { EvmParamsReader, type EvmParams } from './params.js';
import { revertReason } from './revert-reason.js';
import { MAX_TRANSACTION_GAS } from '../../sdk/transaction.js';
import type { Tracer } from './trace/tracer.js';
import { consoleLine, isConsole } from './console-log.js';
import { createContractAddress } from '@ethereumjs/util';

/** The rules version from which a failed create's receipt names the address it would have made. */
export const FAILED_CREATE_ADDRESS_SINCE = 7;
import { sharedHeaderCommon, speedUpCommon } from './vm-speedups.js';
import { loadEvmEngine, type EvmEngine } from './engine.js';
import { withNodeCrypto } from './native-crypto.js';
import pLimit from 'p-limit';
import { beginRun, type RunControl } from './run-control.js';
import { probeGasNeed, watchGasReads } from './gas-probe.js';
import { PrecompileOffload } from './precompile-offload.js';
import type { PrecompileFrame, PrecompileHost } from './precompile-host.js';
import type { CallbackResult, ContractCallback, RegisteredPrecompile } from './precompiles.js';
import { addressOfBytes } from '../../sdk/address.js';

/** The block a transaction or call runs in, as the EVM sees it. */

/** Block hashes for BLOCKHASH (the last 256 blocks). */
export type BlockHashes = (height: number) => Promise<string | undefined>;

/** What a call (eth_call, estimates) asks for: a transaction that is not signed. */
export interface CallRequest {
  readonly from: Address;
  readonly to?: Address;
  readonly data: Uint8Array;
  readonly value: bigint;
  readonly gasLimit: bigint;
  /** A gas price of 0 (the default) runs the call without fees, as nodes do for eth_call. */
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly nonce?: bigint;
  /** EIP-2930: accounts and slots warm from the start (each costs its intrinsic gas, as in the transaction). */
  readonly accessList?: readonly AccessListEntry[];
}

/** One account of an access list, with the storage slots of it to warm (0x hex). */
export interface AccessListEntry {
  readonly address: string;
  readonly storageKeys: readonly string[];
}

/** How a run ended. */
export interface EvmOutcome {
  readonly result: RunTxResult;
  readonly gasUsed: number;
  /** The error a failed run names in its receipt, with a human reason. */
  readonly failure?: {
    readonly name: 'execution_reverted' | 'out_of_gas' | 'code_too_large' | 'execution_failed';
    readonly reason: string;
  };
  readonly receipt: ReceiptDetails;
  /** A call's least gas limit, when its run shows it (see gas-probe.ts): what an estimate answers without searching. */
  readonly gasNeed?: bigint;
  /** Its console.log lines (Hardhat's console.sol), when the runner collects them. */
  readonly console?: readonly string[];
}

const svcOf = (address: EvmAddress): Address => addressOfBytes(address.bytes);
export const evmAddress = (address: string): EvmAddress => new EvmAddress(fromHex(address.slice(4)));

/** A transaction whose sender is known (checked by the envelope, or the native signature): no ecrecover again. */
export function withSender<T extends TypedTransaction>(tx: T, sender: Address, hash?: Uint8Array): T {
  const from = evmAddress(sender);
  Object.assign(tx, { getSenderAddress: () => from, isSigned: () => true, ...(hash ? { hash: () => hash } : {}) });
  return tx;
}

/** An unsigned EIP-1559 transaction from a native envelope's fields, sent by `from`. */
export function unsignedTransaction(
  common: Common,
  request: CallRequest,
  nonce: bigint,
  hash?: Uint8Array,
): TypedTransaction {
  const fields = {
    nonce,
    to: request.to ? evmAddress(request.to) : undefined,
    value: request.value,
    data: request.data,
    gasLimit: request.gasLimit,
  };
  const accessList = request.accessList?.map(({ address, storageKeys }) => ({
    address: address as `0x${string}`,
    storageKeys: storageKeys as `0x${string}`[],
  }));
  // Object.assign, not a spread followed by fields: on Node 20 (V8 11) that made a new hidden class per call.
  let tx: TypedTransaction;
  if (request.maxFeePerGas !== 0n)
    tx = createFeeMarket1559Tx(
      Object.assign({}, fields, {
        maxFeePerGas: request.maxFeePerGas,
        maxPriorityFeePerGas: request.maxPriorityFeePerGas,
        chainId: common.chainId(),
        ...(accessList ? { accessList } : {}),
      }),
      { common, freeze: false },
    );
  else if (accessList)
    tx = createAccessList2930Tx(Object.assign({}, fields, { gasPrice: 0n, accessList, chainId: common.chainId() }), {
      common,
      freeze: false,
    });
  else tx = createLegacyTx(Object.assign({}, fields, { gasPrice: 0n }), { common, freeze: false });
  return withSender(tx, request.from, hash);
}

function failureOf(result: RunTxResult): EvmOutcome['failure'] {
  const error = result.execResult.exceptionError?.error;
  if (error === undefined) return undefined;
  if (error === 'revert') return { name: 'execution_reverted', reason: revertReason(result.execResult.returnValue) };
  if (error === 'out of gas' || error === 'code store out of gas')
    return { name: 'out_of_gas', reason: `out of gas (${error})` };
  if (error === 'code size to deposit exceeds maximum code size')
    return { name: 'code_too_large', reason: 'the deployed code is larger than 24,576 bytes (EIP-170)' };
  return { name: 'execution_failed', reason: `the EVM stopped: ${error}` };
}

/** A VM with its state manager: taken from the runner's pool for one run at a time. */
interface VmSlot {
  readonly vm: VM;
  readonly engine: EvmEngine;
  readonly state: WorldStateManager;
  /** What its precompiles read of the run under way. */
  readonly frame: PrecompileFrame;
  /** The console.log calls of the run under way (dev mode's runner only): their input. */
  readonly consoleCalls: Uint8Array[];
}

/** What the runner needs beyond the EVM's parameters. */
export interface RunnerOptions {
  /** Plugins' precompiles, run at their addresses. */
  readonly precompiles: PrecompileHost;
  /** The EVM's hardfork: the chain's own (EVM_HARDFORK) but in a conformance run at another fork's vectors. */
  readonly hardfork?: Hardfork;
  /** How long a call (eth_call, estimates, svc_call) may run, in ms of wall-clock time (default DEFAULT_CALL_BUDGET_MS). */
  readonly callBudgetMs?: number;
  /** Collect the console.log calls (Hardhat's console.sol) of transactions: dev mode prints them. */
  readonly console?: boolean;
  /** Told once, when the engine has loaded (at the first run), what of its set-up is not in place. */
  readonly onEngine?: (engine: EvmEngine) => void;
}

/** geth's default for the same (its RPCEVMTimeout). */
export const DEFAULT_CALL_BUDGET_MS = 5_000;

/**
 * Calls, estimates' runs and traces run this many at a time; more wait their turn. Runs under way
 * share the one thread, so each one's wall-clock budget also pays for the others': a batch of
 * hundreds of calls run all at once would time out together on a busy machine, though each is small.
 */
const REQUEST_RUNS_AT_ONCE = 4;
/** Block views kept: the head's for calls with and without fees, the block being made, one spare. */
const RECENT_BLOCK_VIEWS = 4;

/**
 * Runs transactions and calls in the EVM (@ethereumjs/vm at the chain's hardfork) over the world
 * state. Each run takes a VM of its own from a small pool (a block's transactions run one after
 * another and reuse one), so a call or a trace never sees a block half-executed. A traced run gets
 * a fresh VM that is dropped afterwards: a trace may be stopped midway.
 */
export class EvmRunner {
  private readonly idle: VmSlot[] = [];
  /** What transactions are built with (shared and read-only: see transactionCommon). */
  readonly txCommon: Common;
  /** Recent block views by their fields: a block's transactions, and calls at the head with and without fees, share them. */
  private readonly blocks = new Map<string, EvmBlock>();
  /** The VM's modules and what the block views are built with (see sharedHeaderCommon), from the first run on. */
  private loaded: { readonly engine: EvmEngine; readonly headerCommon: Common } | undefined;
  /** Where the long-running standard precompiles run: off the event loop. */
  private readonly offload: PrecompileOffload;
  /** Requests' runs under way at once (the rest queue, their budgets not yet started). */
  private readonly requestRuns = pLimit(REQUEST_RUNS_AT_ONCE);
  private readonly paramsReader: EvmParamsReader;

  private constructor(
    readonly params: EvmParams,
    readonly common: Common,
    private readonly hashes: BlockHashes,
    private readonly options: RunnerOptions,
  ) {
    this.txCommon = transactionCommon(params.chainId, options.hardfork);
    this.paramsReader = new EvmParamsReader(params);
    this.offload = new PrecompileOffload(params.chainId, options.hardfork ?? EVM_HARDFORK);
  }

  /** The hardfork the EVM runs at. */
  get hardfork(): Hardfork {
    return this.options.hardfork ?? EVM_HARDFORK;
  }

  static async create(params: EvmParams, hashes: BlockHashes, options: RunnerOptions): Promise<EvmRunner> {
    const common = withNodeCrypto(evmCommon(params.chainId, options.hardfork));
    speedUpCommon(common);
    return new EvmRunner(params, common, hashes, options);
  }

  /** The engine, loaded at the first run (see engine.ts). */
  private async engine(): Promise<EvmEngine> {
    if (this.loaded) return this.loaded.engine;
    const engine = await loadEvmEngine();
    if (!this.loaded) {
      this.loaded = { engine, headerCommon: sharedHeaderCommon(this.common, engine.paramsBlock) };
      this.options.onEngine?.(engine);
    }
    return engine;
  }

  private async newVm(): Promise<VmSlot> {
    const { common, hashes } = this;
    const engine = await this.engine();
    const state = new WorldStateManager();
    const frame: PrecompileFrame = { state, block: undefined, message: undefined };
    const blockchain = {
      async getBlock(height: number) {
        const hash = await hashes(height);
        const bytes = hash ? fromHex(hash) : new Uint8Array(32);
        return { hash: () => bytes };
      },
      async putBlock() {},
      shallowCopy() {
        return this;
      },
    };
    const precompiles = this.options.precompiles;
    const customPrecompiles = [
      ...precompiles.customPrecompiles(frame),
      ...this.offload.customPrecompiles(common, engine.getActivePrecompiles),
    ];
    const vm = await engine.createVM({
      common,
      stateManager: state,
      blockchain: blockchain as never,
      evmOpts: { customPrecompiles },
    });
    precompiles.watch(vm.evm.events!, frame);
    watchGasReads(vm.evm);
    const consoleCalls: Uint8Array[] = [];
    if (this.options.console)
      vm.evm.events!.on('beforeMessage', (message) => {
        // A copy: a call's data can be a view of the caller's memory, which later opcodes overwrite.
        if (message.to && isConsole(message.to.bytes)) consoleCalls.push(message.data.slice());
      });
    return { vm, engine, state, frame, consoleCalls };
  }

  /**
   * Runs `work` on a VM bound to `read` in block `env`, with the tracer attached, as a run of
   * `control`'s class and deadline. A VM whose run was stopped midway (a deadline, a thrown error) is dropped.
   */
  private async withVm<T>(
    read: StateRead,
    env: BlockEnv,
    creation: CreationContext | undefined,
    tracer: Tracer | undefined,
    control: RunControl,
    work: (slot: VmSlot) => Promise<T>,
  ): Promise<T> {
    const run = async (): Promise<T> => {
      const slot = (tracer ? undefined : this.idle.pop()) ?? (await this.newVm());
      slot.state.bind(read, creation);
      slot.frame.block = env;
      const detach = tracer?.attach(slot.vm.evm);
      const endRun = beginRun(slot.vm.evm, control);
      let completed = false;
      try {
        const result = await work(slot);
        completed = true;
        return result;
      } finally {
        detach?.();
        endRun();
        slot.state.bind(() => undefined);
        slot.frame.block = undefined;
        slot.frame.message = undefined;
        if (completed && !tracer && this.idle.length < 4) this.idle.push(slot);
      }
    };
    // A request's run waits for its turn (a few at a time); the chain's starts at once.
    return control.runClass === 'request' ? this.requestRuns(run) : run();
  }

  /** How long a call may run (ms). */
  get callBudgetMs(): number {
    return this.options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
  }

  /**
   * Makes a plugin's callback to a contract at the end of a block: a call from the precompile's
   * address with no fees of its own (its gas is paid by whoever asked for it), its changes kept
   * unless it reverts. An address without code is not called.
   */
  async runCallback(
    callback: ContractCallback,
    read: StateRead,
    sink: StateSink,
    env: BlockEnv,
    tracer?: Tracer,
  ): Promise<CallbackResult & { traced?: EvmOutcome }> {
    return this.withVm(
      read,
      env,
      { creator: callback.from, height: env.height },
      tracer,
      { runClass: 'chain' },
      async ({ vm, state }): Promise<CallbackResult & { traced?: EvmOutcome }> => {
        if ((await state.getCodeSize(evmAddress(callback.to))) === 0)
          return {
            status: 'no_code' as const,
            gasUsed: 0n,
            reason: `${callback.to} has no code (never deployed, or self-destructed)`,
            logs: [],
          };
        await vm.evm.journal.cleanup();
        const result = await vm.evm.runCall({
          caller: evmAddress(callback.from),
          to: evmAddress(callback.to),
          data: callback.data,
          gasLimit: callback.gasLimit,
          value: 0n,
          skipNonceIncrement: true,
          block: this.block(env, await this.paramsOf(read)),
        });
        state.finish(sink);
        const gasUsed = result.execResult.executionGasUsed;
        const error = result.execResult.exceptionError?.error;
        const made: CallbackResult =
          error === undefined
            ? { status: 'success' as const, gasUsed, logs: logsOf(result.execResult.logs) }
            : error === 'revert'
              ? { status: 'reverted' as const, gasUsed, reason: revertReason(result.execResult.returnValue), logs: [] }
              : error === 'out of gas'
                ? { status: 'out_of_gas' as const, gasUsed, reason: `out of gas (${callback.gasLimit} gas)`, logs: [] }
                : { status: 'failed' as const, gasUsed, reason: `the EVM stopped: ${error}`, logs: [] };
        if (!tracer) return made;
        // What a tracer's answer reads of a run, as a transaction's outcome would carry it.
        const traced: EvmOutcome = {
          result: { execResult: result.execResult, totalGasSpent: gasUsed } as unknown as RunTxResult,
          gasUsed: Number(gasUsed),
          ...(made.status === 'success'
            ? {}
            : {
                failure: {
                  name: made.status === 'reverted' ? 'execution_reverted' : 'execution_failed',
                  reason: made.reason ?? '',
                } as const,
              }),
          receipt: { logs: [...made.logs] },
        };
        return { ...made, traced };
      },
    );
  }

  /** Plugins' precompiles this runner runs. */
  get precompiles(): readonly RegisteredPrecompile[] {
    return this.options.precompiles.precompiles;
  }

  /** The parameters in the state a run reads: the block gas limit, base fee and coinbase of the block it runs in. */
  paramsOf(read: StateRead): Promise<EvmParams> {
    return this.paramsReader.of(read);
  }

  /**
   * The EVM's view of a block (cached: a block's transactions share it). Inside a run: the engine has
   * loaded. Its gas limit, base fee and coinbase are the parameters in the state it runs on.
   */
  private block(
    env: BlockEnv,
    params: EvmParams,
    gasLimit: bigint = params.blockGasLimit,
    baseFee = params.baseFee,
  ): EvmBlock {
    const { engine, headerCommon } = this.loaded!;
    const coinbase = params.coinbase ?? env.proposer;
    const key = `${env.height}:${env.timestamp}:${coinbase}:${env.parentHash}:${gasLimit}:${baseFee}`;
    const cached = this.blocks.get(key);
    if (cached) return cached;
    const block = engine.createBlock(
      {
        header: {
          number: BigInt(env.height),
          timestamp: BigInt(Math.floor(env.timestamp / 1000)),
          coinbase: evmAddress(coinbase),
          gasLimit: BigInt(gasLimit),
          baseFeePerGas: baseFee,
          mixHash: fromHex(env.parentHash),
          difficulty: 0n,
        },
      },
      { common: headerCommon, skipConsensusFormatValidation: true },
    );
    this.blocks.set(key, block);
    if (this.blocks.size > RECENT_BLOCK_VIEWS) this.blocks.delete(this.blocks.keys().next().value!);
    return block;
  }

  /**
   * Runs a transaction of a block on its state: the sender's nonce moves, fees are paid (the base
   * fee burned, the priority fee to the proposer), what it changed goes to `sink`. Throws what
   * makes it unable to run at all (runTx's checks: nonce, funds for gas × price + value,
   * intrinsic gas, fee below the base fee), and EvmDeadlineError when the control's budget runs out
   * first. A block's run by default; a replay for a request (a trace) says so.
   */
  async runTransaction(
    tx: TypedTransaction,
    read: StateRead,
    sink: StateSink,
    env: BlockEnv,
    creation: CreationContext,
    tracer?: Tracer,
    control: RunControl = { runClass: 'chain' },
  ): Promise<EvmOutcome> {
    return this.withVm(read, env, creation, tracer, control, async ({ vm, engine, state, consoleCalls }) => {
      consoleCalls.length = 0;
      const params = await this.paramsOf(read);
      const result = await engine.runTx(vm, {
        tx,
        block: this.block(env, params),
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
      });
      state.finish(sink);
      const outcome = this.outcome(tx, result, params.baseFee, undefined, env.rulesVersion);
      const lines = consoleCalls.map(consoleLine).filter((line): line is string => line !== undefined);
      return lines.length > 0 ? { ...outcome, console: lines } : outcome;
    });
  }

  /**
   * Runs a call on a state without keeping anything: eth_call, estimates. The sender needs no
   * funds for a call without a gas price, which runs with no base fee (BASEFEE reads 0, as geth
   * has it); its nonce is not checked.
   */
  async call(
    request: CallRequest,
    read: StateRead,
    env: BlockEnv,
    gasCap?: number,
    tracer?: Tracer,
    budgetMs = this.callBudgetMs,
  ): Promise<EvmOutcome> {
    return this.withVm(
      read,
      env,
      undefined,
      tracer,
      { runClass: 'request', budgetMs },
      async ({ vm, engine, state }) => {
        const account = await state.getAccount(evmAddress(request.from));
        const tx = unsignedTransaction(this.txCommon, request, request.nonce ?? account?.nonce ?? 0n);
        const params = await this.paramsOf(read);
        const cap = BigInt(gasCap ?? callGasCapOf(params));
        const block = this.block(
          env,
          params,
          cap > request.gasLimit ? cap : request.gasLimit,
          request.maxFeePerGas === 0n ? 0n : params.baseFee,
        );
        const endProbe = probeGasNeed(vm.evm, request.gasLimit);
        let result: RunTxResult;
        try {
          result = await engine.runTx(vm, {
            tx,
            block,
            skipNonce: true,
            skipBalance: true,
            skipHardForkValidation: true,
            skipBlockGasLimitValidation: true,
          });
        } catch (error) {
          endProbe(undefined);
          throw error;
        }
        return this.outcome(tx, result, params.baseFee, endProbe(result));
      },
    );
  }

  private outcome(
    tx: TypedTransaction,
    result: RunTxResult,
    baseFee: bigint,
    gasNeed?: bigint,
    rulesVersion?: number,
  ): EvmOutcome {
    const failure = failureOf(result);
    const logs = logsOf(result.execResult.logs);
    // From rules version 7 a create's receipt names its address whether or not it succeeded (as geth
    // and Anvil fill it whenever `to` is empty); before, only a successful one's.
    const created =
      result.createdAddress && !failure
        ? result.createdAddress
        : tx.to === undefined && rulesVersion !== undefined && rulesVersion >= FAILED_CREATE_ADDRESS_SINCE
          ? createContractAddress(tx.getSenderAddress(), tx.nonce)
          : undefined;
    const receipt: ReceiptDetails = {
      effectiveGasPrice: effectiveGasPrice(tx, baseFee).toString(),
      logs,
      ...(created ? { contractAddress: svcOf(created) } : {}),
      ...(failure?.name === 'execution_reverted' ? { revert: toHex(result.execResult.returnValue) } : {}),
    };
    return {
      result,
      gasUsed: Number(result.totalGasSpent),
      ...(failure ? { failure } : {}),
      receipt,
      ...(gasNeed === undefined ? {} : { gasNeed }),
    };
  }
}

/** What each unit of gas cost: the base fee plus the priority fee the fee cap leaves room for (a legacy transaction's gas price). */
/** The most gas a call may have: the block gas limit, within EIP-7825's cap on a transaction. */
export const callGasCapOf = (params: EvmParams): number => Math.min(Number(params.blockGasLimit), MAX_TRANSACTION_GAS);

export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const tip =
      tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee;
    return baseFee + (tip > 0n ? tip : 0n);
  }
  return tx.gasPrice;
}

/** The EVM's logs as receipts hold them. */
function logsOf(logs: readonly [Uint8Array, Uint8Array[], Uint8Array][] | undefined): Log[] {
  return (logs ?? []).map(([address, topics, data]) => ({
    address: addressOfBytes(address),
    topics: topics.map((topic) => toHex(topic)),
    data: toHex(data),
  }));
}
