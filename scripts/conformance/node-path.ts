import type { Hardfork } from '@ethereumjs/common';
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import evmPlugin from '../../plugins/evm/index.js';
import { EvmRunner } from '../../plugins/evm/runner.js';
import { EvmRules } from '../../plugins/evm/service.js';
import { speedUpInterpreter } from '../../plugins/evm/vm-speedups.js';
import { paceInterpreter } from '../../plugins/evm/run-control.js';
import { PrecompileHost } from '../../plugins/evm/precompile-host.js';
import { collectPrecompiles } from '../../plugins/evm/precompiles.js';
import { TxKindRegistry } from '../../chain/tx-kinds.js';
import { DEFAULT_MEMPOOL, Mempool } from '../../chain/mempool.js';
import { executeTransactions, type ExecutionResult } from '../../chain/executor.js';
import type { BlockEnv } from '../../chain/contract.js';
import { decodeVerified, type DecodeResult } from '../../chain/decode-verified.js';
import type { EnvelopeContext } from '../../chain/ethereum-envelope.js';
import type { StateReader } from '../../chain/state/overlay.js';
import { createLogger } from '../../kernel/log.js';
import type { SignedTransaction } from '../../sdk/transaction.js';
import { toHex } from '../../sdk/bytes.js';

/** The chain id conformance transactions carry (the native one: the EVM's is the vectors'). */
export const CONFORMANCE_CHAIN_ID = 'conformance-1';

/**
 * BLOCKHASH in Ethereum's state tests: Keccak-256 of the block number written in decimal (the
 * vectors were filled with that rule, geth's `vmTestBlockHash`).
 */
export const vectorBlockHash = async (height: number): Promise<string> =>
  toHex(keccak_256(new TextEncoder().encode(String(height))));

/** What a block of the vectors fixes for the EVM that the chain keeps as genesis parameters. */
export interface PathParams {
  readonly evmChainId: number;
  readonly baseFee: bigint;
  readonly blockGasLimit: bigint;
}

const log = createLogger({ level: 'silent', format: 'json' });

/**
 * The node's own path for an Ethereum transaction, put together as a node does it but without the
 * parts that are not about execution (storage, networking, RPC): the envelope decoder that
 * `eth_sendRawTransaction` runs, the mempool's admission with the EVM plugin's transaction kinds,
 * and the block executor running those kinds on the EVM plugin's runner (its state manager, VM
 * set-up, code-analysis cache, Common speed-up and precompile host) at the given hardfork.
 */
export class NodePath {
  private constructor(
    readonly envelope: EnvelopeContext,
    readonly rules: EvmRules,
    readonly kinds: TxKindRegistry,
  ) {}

  static async create(hardfork: Hardfork, params: PathParams): Promise<NodePath> {
    const unpatched = (await speedUpInterpreter()) ?? (await paceInterpreter());
    if (unpatched) throw new Error(`the node's EVM set-up is not in place: ${unpatched}`);
    let rules: EvmRules | undefined;
    const service = () => ({ rules: rules! });
    const precompiles = new PrecompileHost(collectPrecompiles([{ definition: evmPlugin, service }]));
    const runner = await EvmRunner.create(
      { chainId: params.evmChainId, baseFee: params.baseFee, blockGasLimit: params.blockGasLimit },
      vectorBlockHash,
      { precompiles, hardfork },
    );
    rules = new EvmRules(runner);
    const kinds = TxKindRegistry.collect([{ definition: evmPlugin, service }]);
    return new NodePath({ chainId: CONFORMANCE_CHAIN_ID, evmChainId: params.evmChainId, hardfork }, rules, kinds);
  }

  /** Why decoding refused the bytes, in the decoder's words; undefined when it gave a transaction. */
  static refusal(decoded: DecodeResult): string | undefined {
    if ('tx' in decoded) return undefined;
    if ('format' in decoded) return decoded.format;
    if ('wrongChain' in decoded) return decoded.wrongChain;
    return decoded.reason ?? 'bad signature';
  }

  /** Decodes raw bytes and recovers the sender, as `eth_sendRawTransaction` does. */
  decode(raw: Uint8Array): DecodeResult {
    return decodeVerified(raw, this.envelope);
  }

  /** The mempool's admission over `state`; throws the domain error that refuses it. */
  admit(tx: SignedTransaction, state: StateReader): void {
    new Mempool({
      state,
      kinds: this.kinds,
      chainId: CONFORMANCE_CHAIN_ID,
      options: DEFAULT_MEMPOOL,
      rulesVersion: () => NEWEST_RULES_VERSION,
    }).addVerified(tx);
  }

  /** Runs transactions as a block producer does (an invalid one is left out and listed). */
  execute(txs: readonly SignedTransaction[], env: BlockEnv, state: StateReader): Promise<ExecutionResult> {
    return executeTransactions(txs, env, state, this.kinds, log, false);
  }
}

/** One NodePath per hardfork, chain id, base fee and block gas limit (the VM set-up is made once for each). */
export class NodePaths {
  private readonly paths = new Map<string, Promise<NodePath>>();

  constructor(private readonly hardfork: Hardfork) {}

  get(params: PathParams): Promise<NodePath> {
    const key = `${params.evmChainId}:${params.baseFee}:${params.blockGasLimit}`;
    let path = this.paths.get(key);
    if (!path) this.paths.set(key, (path = NodePath.create(this.hardfork, params)));
    return path;
  }
}
