import { CALLBACK_KIND, systemTransaction, type SystemCall } from '../../chain/system-transactions.js';
import type { ContractCallback } from './precompiles.js';
import type { Tracer, TracedRun } from './trace/tracer.js';
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { accountAddress, type Address, addressOfBytes, hexOfAddress } from '../../sdk/address.js';
import type { SignedTransaction } from '../../sdk/transaction.js';
import { fromHex } from '../../sdk/bytes.js';
import {
  isTxFailure,
  TxFailure,
  TxPostponed,
  type EndBlockContext,
  type TxContext,
  type TxOutcome,
} from '../../chain/contract.js';
import { EvmDeadlineError } from './run-control.js';
import { ETHEREUM_KIND, ethereumTransactionOf, type EthereumPayload } from '../../chain/ethereum-envelope.js';
import { DEV_IMPERSONATED_KIND, impersonatedSender, type DevImpersonated } from './dev-edits.js';
import type { ChainViews } from '../../chain/capabilities.js';
import { checkAdmission } from './admission.js';
import { EvmParamsReader, type EvmParams } from './params.js';
import {
  callGasCapOf,
  unsignedTransaction,
  withSender,
  type CallRequest,
  type EvmOutcome,
  type EvmRunner,
} from './runner.js';

/** The fields of a native `evm.create` / `evm.call` payload that make the transaction. */
export interface NativeEvmFields {
  readonly to?: string;
  readonly code?: string;
  readonly data?: string;
  readonly value: string;
  readonly gasLimit: number;
  readonly maxFeePerGas?: string;
  readonly maxPriorityFeePerGas?: string;
}

/** A native payload's fields with a call's `to` in the svc1 form (it may be given as 0x…). */
export const nativeFields = (payload: NativeEvmFields): NativeEvmFields =>
  payload.to ? { ...payload, to: accountAddress(payload.to) } : payload;

/**
 * The EVM's chain rules: the runner, the parameters, and the transactions of payloads (parsed once
 * per payload object: admission and execution on the node that admitted it share it). What the
 * transaction kinds run, on a node or in the conformance runner (scripts/conformance/).
 */
/** What a node's EVM rules tell beyond the chain's state. */
export interface EvmObservers {
  /** Told the console.log lines of each transaction executed (dev mode prints them), with its hash. */
  readonly onConsole?: (hash: string, lines: readonly string[]) => void;
}

export class EvmRules {
  /**
   * Callbacks to trace when a replay makes them (debug_traceTransaction of a system transaction), by
   * their system transaction's hash: the replay's last pass leaves what it saw in `seen`.
   */
  readonly tracing = new Map<string, CallbackTrace>();

  constructor(
    readonly runner: EvmRunner,
    private readonly observers: EvmObservers = {},
  ) {}

  /** The parameters a transaction admitted now is checked against: the head's (the runner's own, with no chain). */
  get params(): EvmParams {
    return this.runner.params;
  }

  /** The most gas a call may have now: the block gas limit, within EIP-7825's cap on a transaction. */
  get callGasCap(): number {
    return callGasCapOf(this.params);
  }

  /** An Ethereum envelope's transaction (its signature was checked when it was decoded). */
  ethereumTx(payload: EthereumPayload, sender?: Address, hash?: Uint8Array): TypedTransaction {
    const tx = ethereumTransactionOf(payload, this.params.chainId, this.runner.hardfork);
    return sender ? withSender(tx, sender, hash) : tx;
  }

  /** A native transaction's fields as an EVM transaction; the fee cap defaults to the base fee, the priority fee to 0. */
  nativeTx(payload: NativeEvmFields, sender: Address, nonce: number | string, hash?: Uint8Array): TypedTransaction {
    const feeCap = payload.maxFeePerGas === undefined ? this.params.baseFee : BigInt(payload.maxFeePerGas);
    const request: CallRequest = {
      from: sender,
      ...(payload.to ? { to: payload.to as Address } : {}),
      data: fromHex(payload.code ?? payload.data ?? '0x'),
      value: BigInt(payload.value),
      gasLimit: BigInt(payload.gasLimit),
      // A zero fee cap would make a free legacy transaction: the base fee is the least it pays.
      maxFeePerGas: feeCap === 0n ? this.params.baseFee : feeCap,
      maxPriorityFeePerGas: payload.maxPriorityFeePerGas === undefined ? 0n : BigInt(payload.maxPriorityFeePerGas),
    };
    return unsignedTransaction(this.runner.txCommon, request, BigInt(nonce), hash);
  }

  /**
   * The EVM transaction of a signed transaction of one of the EVM's kinds (undefined for another
   * kind): what its execution runs, with its sender and hash known.
   */
  transactionOf(signed: SignedTransaction): TypedTransaction | undefined {
    if (signed.kind === ETHEREUM_KIND)
      return this.ethereumTx(signed.payload as EthereumPayload, signed.from, fromHex(signed.hash));
    if (signed.kind === 'evm.create' || signed.kind === 'evm.call')
      return this.nativeTx(
        nativeFields(signed.payload as unknown as NativeEvmFields),
        signed.from,
        signed.nonce,
        fromHex(signed.hash),
      );
    if (signed.kind === DEV_IMPERSONATED_KIND)
      return this.impersonatedTx(signed.payload as unknown as DevImpersonated, fromHex(signed.hash));
    return undefined;
  }

  /** Dev mode's impersonated transaction as the EVM runs it: as its `from`, with `from`'s nonce. */
  impersonatedTx(payload: DevImpersonated, hash?: Uint8Array): TypedTransaction {
    const { from: _from, nonce, to, type, gasPrice, accessList, ...fields } = payload;
    if (type === undefined)
      return this.nativeTx(
        nativeFields({ ...fields, ...(to ? { to } : {}) }),
        impersonatedSender(payload),
        nonce,
        hash,
      );
    const common = this.runner.txCommon;
    const base = {
      nonce: BigInt(nonce),
      to: (to ?? undefined) as `0x${string}` | undefined,
      value: BigInt(payload.value),
      data: payload.data as `0x${string}`,
      gasLimit: BigInt(payload.gasLimit),
    };
    const list = (accessList ?? []).map((entry) => ({
      address: entry.address as `0x${string}`,
      storageKeys: entry.storageKeys as `0x${string}`[],
    }));
    const price = gasPrice === undefined ? this.params.baseFee : BigInt(gasPrice);
    const tx =
      type === 0
        ? createLegacyTx({ ...base, gasPrice: price }, { common, freeze: false })
        : type === 1
          ? createAccessList2930Tx(
              { ...base, gasPrice: price, accessList: list, chainId: common.chainId() },
              { common, freeze: false },
            )
          : createFeeMarket1559Tx(
              {
                ...base,
                accessList: list,
                chainId: common.chainId(),
                maxFeePerGas: fields.maxFeePerGas === undefined ? this.params.baseFee : BigInt(fields.maxFeePerGas),
                maxPriorityFeePerGas:
                  fields.maxPriorityFeePerGas === undefined ? 0n : BigInt(fields.maxPriorityFeePerGas),
              },
              { common, freeze: false },
            );
    return withSender(tx, impersonatedSender(payload), hash);
  }

  admit(tx: TypedTransaction): void {
    checkAdmission(tx, this.params);
  }

  /** Runs a block's EVM transaction; a revert or an exceptional halt is a failed receipt that still paid its gas. */
  async execute(ctx: TxContext<unknown>, tx: TypedTransaction): Promise<TxOutcome> {
    let outcome;
    try {
      outcome = await this.runner.runTransaction(
        tx,
        (key) => ctx.readState(key),
        {
          setAccount: (address, account) => ctx.setAccount(address, account),
          writeState: (key, value) => ctx.writeState(key, value),
        },
        ctx,
        // The account the EVM runs it as (an impersonated one's too: the signer of its envelope is the validator).
        { creator: addressOfBytes(tx.getSenderAddress().bytes), height: ctx.height },
        undefined,
        {
          runClass: 'chain',
          budgetMs: ctx.deadline === undefined ? undefined : Math.max(0, ctx.deadline - performance.now()),
        },
      );
    } catch (error) {
      if (isTxFailure(error)) throw error;
      if (error instanceof EvmDeadlineError)
        throw new TxPostponed(`still running at the block's deadline: ${error.message}`);
      // runTx's own refusals: it could not run at all (funds gone since admission, a fee cap now below the base fee).
      const message = (error as Error).message.split('\n')[0]!.replace(/ \(.*$/, '');
      throw new TxFailure(
        /funds|balance/i.test(message)
          ? 'insufficient_funds'
          : /base ?fee/i.test(message)
            ? 'fee_too_low'
            : 'invalid_transaction',
        message.slice(0, 300),
      );
    }
    if (outcome.console) this.observers.onConsole?.(ctx.tx.hash, outcome.console);
    return {
      gasUsed: outcome.gasUsed,
      receipt: outcome.receipt,
      ...(outcome.failure ? { failed: outcome.failure } : {}),
    };
  }

  /**
   * The end of a block: the contract calls plugins' precompiles ask for (callbacks), in plugin
   * order, each recorded by its owner in this block. Runs after their own end steps.
   */
  async runCallbacks(ctx: EndBlockContext): Promise<void> {
    const env = ctx;
    const sink = { setAccount: ctx.setAccount.bind(ctx), writeState: ctx.writeState.bind(ctx) };
    for (const { spec, service } of this.runner.precompiles) {
      for (const callback of spec.callbacks?.(ctx, service()) ?? []) {
        const wanted =
          this.tracing.size > 0 ? this.tracing.get(systemTransaction(callOf(callback), ctx.height).hash) : undefined;
        const tracer = wanted?.make();
        const result = await this.runner.runCallback(callback, (key) => ctx.readState(key), sink, env, tracer);
        if (wanted && tracer && result.traced)
          wanted.seen = {
            tracer,
            outcome: result.traced,
            run: {
              from: hexOfAddress(callback.from),
              to: hexOfAddress(callback.to),
              value: 0n,
              gasLimit: callback.gasLimit,
              input: callback.data,
            },
          };
        // A call made is a system transaction (one to an address without code is not made).
        const hash =
          result.status === 'no_code'
            ? undefined
            : ctx.recordSystemTransaction(callOf(callback), {
                status: result.status === 'success' ? 'success' : 'failed',
                gasUsed: Number(result.gasUsed),
                logs: result.logs,
                ...(result.status === 'success'
                  ? {}
                  : {
                      error: {
                        name: result.status === 'reverted' ? 'execution_reverted' : result.status,
                        reason: result.reason ?? '',
                      },
                    }),
              });
        callback.done(result, ctx, hash);
      }
    }
  }
}

/** The EVM plugin's service: its chain rules, and the chain the Ethereum JSON-RPC reads. */
export class EvmService extends EvmRules {
  private readonly headParams: EvmParamsReader;

  constructor(
    runner: EvmRunner,
    readonly chain: ChainViews,
    observers: EvmObservers = {},
  ) {
    super(runner, observers);
    this.headParams = new EvmParamsReader(runner.params);
  }

  /** The head's parameters: dev mode may change the block gas limit, base fee and coinbase. */
  override get params(): EvmParams {
    return this.headParams.ofSync((key) => this.chain.state.get(key));
  }
}

/** A callback a trace waits for: how to make its tracer, and what the last run of it saw. */
export interface CallbackTrace {
  readonly make: () => Tracer;
  seen?: { readonly tracer: Tracer; readonly outcome: EvmOutcome; readonly run: TracedRun };
}

/** The call a callback makes, as its system transaction records it. */
const callOf = (callback: ContractCallback): SystemCall => ({
  kind: CALLBACK_KIND,
  origin: callback.origin,
  from: callback.from,
  to: callback.to,
  data: callback.data,
  gasLimit: callback.gasLimit,
});
