import { allTransactions } from '../../chain/block-store.js';
import { txpoolMethods } from './eth/txpool-methods.js';
import { abiRegistryMethods, EVM_ABIS } from './abi-registry.js';
import { definePlugin } from '../../kernel/plugin.js';
import { ETHEREUM_KIND } from '../../chain/ethereum-envelope.js';
import type { CommittedReceipt } from '../../chain/contract.js';
import { EvmRunner } from './runner.js';
import { EvmConfigSchema } from './config.js';
import { EvmService } from './service.js';
import { applyParamChange, EVM_PARAMS, evmGenesis, readEvmParams } from './params.js';
import { evmTxKinds } from './tx-kinds.js';
import { EthApi } from './eth/api.js';
import { EthBlockIndex, ETH_BLOCKS, ETH_META } from './eth/block-index.js';
import { PollFilters } from './eth/filters.js';
import { ethMethods } from './eth/methods.js';
import { debugMethods } from './eth/debug-methods.js';
import { TraceApi } from './eth/trace-api.js';
import { ethSubscriptions } from './eth/subscriptions.js';
import { svcEvmMethods, svcLogsSubscription } from './svc-methods.js';
import type { EvmPlugin } from './plugin-service.js';
import { collectPrecompiles } from './precompiles.js';
import { PrecompileHost } from './precompile-host.js';
import { ogtPrecompile } from './ogt-precompile.js';
import { devEditKind, devImpersonatedKind, devParamsKind } from './dev-edits.js';
import { EVM_ERRORS } from './errors.js';

declare module '../../kernel/plugin.js' {
  interface SvcCapabilities {
    evm: EvmPlugin;
  }
}

/**
 * Contracts on chain: the EVM (@ethereumjs/vm at Osaka) as chain rules on every node. It owns the
 * EVM's state (code and storage under `evm/`; balances and nonces are the accounts' OMC and nonce),
 * its transaction kinds (`evm.ethereum` for Ethereum envelopes, `evm.create` and `evm.call` for
 * native ones), its genesis parameters (EVM chain id, block gas limit, base fee), and the Ethereum
 * JSON-RPC (`eth_`, `net_`, `web3_`, `eth_subscribe`, `debug_trace*`) with its `svc_` counterparts.
 */
export default definePlugin({
  name: 'evm',
  errors: EVM_ERRORS,
  version: '1.0.0',
  description: 'contracts on chain: the EVM (Osaka) over the world state, Ethereum transactions, the Ethereum JSON-RPC',
  requires: ['chain-views', 'sync-status'],
  config: EvmConfigSchema,
  configFromNode: (node) => ({ dev: node.dev === true }),
  provides: ['evm'],
  namespaces: [ETH_BLOCKS, ETH_META, EVM_ABIS],
  async init(ctx): Promise<EvmPlugin> {
    const chain = ctx.use('chain-views');
    const params = readEvmParams((key) => chain.state.get(key));
    const precompiles = new PrecompileHost(collectPrecompiles(ctx.plugins));
    const runner = await EvmRunner.create(params, (height) => chain.blockHashAt(height), {
      precompiles,
      callBudgetMs: ctx.config.callTimeoutMs,
      console: ctx.config.dev,
      onEngine: ({ unpatched, unpaced }) => {
        ctx.log.info('EVM engine loaded (at the first EVM run)');
        if (unpatched)
          ctx.log.warn({ reason: unpatched }, 'the EVM analyses contract code on every call (slower, same results)');
        if (unpaced)
          ctx.log.error(
            { reason: unpaced },
            'the EVM cannot pause: a long call or block holds the node until it ends, and calls have no time budget',
          );
      },
    });
    // As Hardhat and Anvil do: a contract's console.log lines in the dev node's log, with the
    // transaction, until anvil_setLoggingEnabled turns them off.
    let consoleLogging = true;
    const rules = new EvmService(
      runner,
      chain,
      ctx.config.dev
        ? {
            onConsole: (hash, lines) => {
              if (!consoleLogging) return;
              for (const line of lines) ctx.log.info({ tx: hash, console: line }, `console.log: ${line}`);
            },
          }
        : {},
    );
    const index = new EthBlockIndex(ctx.table(ETH_BLOCKS), ctx.table(ETH_META), () => ctx.batch(), ctx.log);
    await index.catchUp(chain.head.height, async (height) => {
      const block = await chain.getBlock(height);
      const receipts = await Promise.all((block ? allTransactions(block) : []).map((hash) => chain.getReceipt(hash)));
      return receipts.filter(
        (receipt): receipt is CommittedReceipt & NonNullable<typeof receipt> => receipt !== undefined,
      );
    });
    const eth = new EthApi(rules, index);
    const filters = new PollFilters(eth);
    ctx.events.on('chain:block', ({ height, receipts }) => index.add(height, receipts));
    // Gone back (dev mode's revert), or begun at a snapshot (state sync): the index holds nothing above it.
    for (const event of ['chain:rewound', 'chain:restored'] as const)
      ctx.events.on(event, ({ height }) => {
        index.rewind(height);
        filters.rewound(height);
      });
    ctx.events.on('chain:pendingTransaction', ({ hash, kind }) => {
      if (kind === ETHEREUM_KIND) filters.pending(hash);
    });
    ctx.log.info(
      {
        evmChainId: params.chainId,
        blockGasLimit: Number(params.blockGasLimit),
        baseFee: params.baseFee.toString(),
        precompiles: precompiles.precompiles.map((p) => `${p.spec.name} ${p.spec.address}`),
      },
      `EVM at Osaka, chain id ${params.chainId} (0x${params.chainId.toString(16)})`,
    );
    return {
      rules,
      eth,
      filters,
      trace: new TraceApi(rules, eth),
      sync: ctx.use('sync-status'),
      syncStart: chain.head.height,
      dev: ctx.config.dev,
      abis: ctx.table(EVM_ABIS),
      setConsoleLogging: (on) => {
        consoleLogging = on;
      },
    };
  },
  txKinds: (kind) => [...evmTxKinds(kind), devEditKind(kind), devImpersonatedKind(kind), devParamsKind(kind)],
  // After every plugin's end step: a precompile owner's callbacks are due once its step settled them.
  async afterEndBlock(ctx, service) {
    await service.rules.runCallbacks(ctx);
    // After the block's callbacks: every run of the block saw the parameters it began with.
    applyParamChange(
      (key) => ctx.readState(key),
      (key, value) => ctx.writeState(key, value),
    );
  },
  params: EVM_PARAMS,
  precompiles: (precompile) => [ogtPrecompile(precompile)],
  genesis: (parameters) => evmGenesis(parameters),
  rpc: (method) => [
    ...ethMethods(method),
    ...debugMethods(method),
    ...txpoolMethods(method),
    ...svcEvmMethods(method),
    ...abiRegistryMethods(method),
  ],
  subscriptions: (kind) => [...ethSubscriptions(kind), svcLogsSubscription(kind)],
});
