import Type from 'typebox';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../../kernel/plugin.js';
import { VERSION } from '../../../kernel/version.js';
import type { EvmPlugin } from '../plugin-service.js';
import { BlockParamSchema, type BlockParam } from './block-tag.js';
import { fillTransaction } from './fill-transaction.js';
import { DataSchema, EthAddressSchema, EthResult, Hash32Schema, QuantitySchema, qty } from './quantity.js';
import { StateOverridesSchema } from './state-overrides.js';
import type { EthCallObject, LogFilter } from './api.js';

const Address = EthAddressSchema;
/** A transaction's gas and nonce are 64-bit in Ethereum: a larger one is a bad parameter, not a call that fails inside. */
const Uint64 = Type.String({ pattern: '^0x[0-9a-fA-F]{1,16}$', description: 'a hex quantity below 2^64' });
export const CallObject = Type.Refine(
  Type.Object(
    {
      from: Type.Optional(Address),
      to: Type.Optional(Type.Union([Address, Type.Null()])),
      gas: Type.Optional(Uint64),
      gasPrice: Type.Optional(QuantitySchema),
      maxFeePerGas: Type.Optional(QuantitySchema),
      maxPriorityFeePerGas: Type.Optional(QuantitySchema),
      value: Type.Optional(QuantitySchema),
      data: Type.Optional(DataSchema),
      input: Type.Optional(DataSchema),
      nonce: Type.Optional(Uint64),
      type: Type.Optional(
        Type.String({
          pattern: '^0x[0-9a-fA-F]{1,2}$',
          description: 'the transaction type a send makes (0x0, 0x1, 0x2); a call ignores it',
        }),
      ),
      accessList: Type.Optional(
        Type.Array(
          Type.Object({ address: Address, storageKeys: Type.Array(Hash32Schema) }, { additionalProperties: false }),
          { maxItems: 1_000 },
        ),
      ),
    },
    // Tools send more (chainId, …): what a call does not use is ignored.
    { additionalProperties: true },
  ),
  (call) =>
    call.maxFeePerGas === undefined ||
    call.maxPriorityFeePerGas === undefined ||
    BigInt(call.maxPriorityFeePerGas) <= BigInt(call.maxFeePerGas),
  () => 'has maxPriorityFeePerGas above maxFeePerGas (max priority fee per gas higher than max fee per gas)',
);
const Topic = Type.Union([Hash32Schema, Type.Null(), Type.Array(Hash32Schema)]);
const Filter = Type.Object(
  {
    fromBlock: Type.Optional(Type.String()),
    toBlock: Type.Optional(Type.String()),
    blockHash: Type.Optional(Hash32Schema),
    address: Type.Optional(Type.Union([Address, Type.Array(Address)])),
    topics: Type.Optional(Type.Array(Topic, { maxItems: 4 })),
  },
  { additionalProperties: false },
);
const Block = optionalParam('block', BlockParamSchema);
const Quantity = Type.String({ pattern: '^0x[0-9a-f]+$' });

/**
 * The Ethereum JSON-RPC (`eth_`, `net_`, `web3_`) as Foundry, Hardhat, viem, ethers and wallets
 * call it, with Ethereum's conventions: hex quantities, `null` for what is unknown, geth's error
 * words. Methods of those families not listed here answer -32601, so clients fall back.
 */
export function ethMethods(method: MethodFactory<EvmPlugin>): RpcMethod[] {
  return [
    method({
      name: 'eth_chainId',
      summary: 'The EVM chain id (EIP-155) transactions are signed for.',
      params: [],
      result: Quantity,
      handler: (_p, { service }) => service.eth.chainId(),
    }),
    method({
      name: 'net_version',
      summary: 'The EVM chain id in decimal.',
      params: [],
      result: Type.String(),
      handler: (_p, { service }) => String(service.rules.params.chainId),
    }),
    method({
      name: 'net_listening',
      summary: 'Whether the node takes peers: true.',
      params: [],
      result: Type.Boolean(),
      handler: () => true,
    }),
    method({
      name: 'web3_clientVersion',
      summary:
        "The node software and version (`svc-node/v<version>/node-<version>`); in dev mode `anvil/svc-node-v<version>/node-<version>`, which tools that accept only a development node by this answer (Hardhat's network helpers) take for Anvil.",
      params: [],
      result: Type.String(),
      // Hardhat's network helpers refuse a node whose version does not begin with "hardhatnetwork",
      // "zksync" or "anvil"; dev mode serves Anvil's methods (and Hardhat's names of them), so it
      // begins with "anvil", and names svc-node next.
      handler: (_params, { service }) =>
        service.dev
          ? `anvil/svc-node-v${VERSION}/node-${process.version}`
          : `svc-node/v${VERSION}/node-${process.version}`,
    }),
    method({
      name: 'eth_syncing',
      summary: 'false when synced; otherwise where the sync stands.',
      params: [],
      result: EthResult('false, or { startingBlock, currentBlock, highestBlock }'),
      handler: (_p, { service }) => {
        const head = service.rules.chain.head.height;
        const best = service.sync.highestKnown;
        return service.sync.synced || best <= head
          ? false
          : { startingBlock: qty(service.syncStart), currentBlock: qty(head), highestBlock: qty(best) };
      },
    }),
    method({
      name: 'eth_blockNumber',
      summary: 'The head height.',
      params: [],
      result: Quantity,
      handler: (_p, { service }) => qty(service.rules.chain.head.height),
    }),
    method({
      name: 'eth_getBalance',
      summary: 'OMC in base units (wei) at a block.',
      params: [param('address', Address), Block],
      result: Quantity,
      errors: ['pruned'],
      handler: ([a, b], { service }) => service.eth.balance(a, b),
    }),
    method({
      name: 'eth_getTransactionCount',
      summary:
        'An account\'s nonce at a block; with "pending", the next nonce counting pending transactions (one nonce sequence for both envelopes).',
      params: [param('address', Address), Block],
      result: Quantity,
      errors: ['pruned'],
      handler: ([a, b], { service }) => service.eth.transactionCount(a, b),
    }),
    method({
      name: 'eth_getCode',
      summary: "An account's code at a block.",
      params: [param('address', Address), Block],
      result: DataSchema,
      errors: ['pruned'],
      handler: ([a, b], { service }) => service.eth.code(a, b),
    }),
    method({
      name: 'eth_getStorageAt',
      summary: 'A storage slot of an account at a block (32 bytes).',
      params: [param('address', Address), param('slot', QuantitySchema), Block],
      result: Hash32Schema,
      errors: ['pruned'],
      handler: ([a, s, b], { service }) => service.eth.storageAt(a, s, b),
    }),
    method({
      name: 'eth_call',
      summary:
        'Runs a call on a block\'s state without a transaction; a revert answers code 3 "execution reverted" with the revert bytes as data.',
      params: [param('call', CallObject), Block, optionalParam('stateOverrides', StateOverridesSchema)],
      result: DataSchema,
      errors: ['pruned'],
      handler: ([call, b, overrides], { service }) => service.eth.call(call as EthCallObject, b, overrides),
    }),
    method({
      name: 'eth_estimateGas',
      summary:
        'The least gas limit with which a call succeeds: exact from one run when the call reads no gas (no GAS, call, create, precompile or refund), else within 1.5% by search; a revert answers code 3 like eth_call.',
      params: [param('call', CallObject), Block],
      result: Quantity,
      errors: ['pruned'],
      handler: ([call, b], { service }) => service.eth.estimateGas(call as EthCallObject, b),
    }),
    method({
      name: 'eth_fillTransaction',
      summary:
        'A call object completed for signing: the pending nonce, gas by estimate, fees (base fee plus tip as the cap), chain id; `{ raw, tx }` as geth answers (the unsigned RLP and its fields).',
      params: [param('transaction', CallObject)],
      result: EthResult('{ raw, tx }'),
      handler: ([call], { service }) => fillTransaction(service.eth, service.rules, call),
    }),
    method({
      name: 'eth_gasPrice',
      summary: 'A gas price that is included: the base fee (fixed on this network).',
      params: [],
      result: Quantity,
      handler: (_p, { service }) => qty(service.rules.params.baseFee),
    }),
    method({
      name: 'eth_maxPriorityFeePerGas',
      summary: 'A priority fee that is included: 0 (blocks have room; the proposer takes what is offered).',
      params: [],
      result: Quantity,
      handler: () => '0x0',
    }),
    method({
      name: 'eth_feeHistory',
      summary: 'Base fees, gas used ratios and priority-fee percentiles of recent blocks (at most 1,024).',
      params: [
        param('blockCount', Type.Union([QuantitySchema, Type.Integer({ minimum: 1 })])),
        param('newestBlock', BlockParamSchema),
        optionalParam('rewardPercentiles', Type.Array(Type.Number({ minimum: 0, maximum: 100 }), { maxItems: 100 })),
      ],
      result: EthResult('{ oldestBlock, baseFeePerGas, gasUsedRatio, reward? }'),
      handler: ([count, newest, percentiles], { service }) =>
        service.eth.feeHistory(Number(count), newest as BlockParam, percentiles),
    }),
    method({
      name: 'eth_sendRawTransaction',
      summary:
        'Submits a signed Ethereum transaction (legacy with EIP-155, EIP-2930, EIP-1559); answers its hash once the mempool admitted it.',
      params: [param('transaction', DataSchema)],
      result: Hash32Schema,
      handler: ([raw], { service }) => service.eth.sendRaw(raw),
    }),
    method({
      name: 'eth_getTransactionByHash',
      summary: 'An Ethereum transaction, pending or mined; null when unknown.',
      params: [param('hash', Hash32Schema)],
      result: EthResult('a transaction, or null'),
      handler: ([h], { service }) => service.eth.transactionByHash(h),
    }),
    method({
      name: 'eth_getTransactionReceipt',
      summary: "A mined Ethereum transaction's receipt; null while pending or unknown.",
      params: [param('hash', Hash32Schema)],
      result: EthResult('a receipt, or null'),
      errors: ['pruned'],
      handler: ([h], { service }) => service.eth.receipt(h),
    }),
    method({
      name: 'eth_getBlockByNumber',
      summary: 'A block with its Ethereum transactions (hashes, or whole with full = true); null for one not made yet.',
      params: [param('block', BlockParamSchema), optionalParam('full', Type.Boolean())],
      result: EthResult('a block, or null'),
      handler: async ([b, full], { service }) =>
        service.eth.blockByHeight(await service.eth.heightOf(b), full ?? false),
    }),
    method({
      name: 'eth_getBlockByHash',
      summary: 'A block by hash with its Ethereum transactions; null when unknown.',
      params: [param('hash', Hash32Schema), optionalParam('full', Type.Boolean())],
      result: EthResult('a block, or null'),
      handler: ([h, full], { service }) => service.eth.blockByHash(h, full ?? false),
    }),
    method({
      name: 'eth_createAccessList',
      summary:
        'The access list a call would use (the accounts and slots it touches; its sender, recipient and the precompiles only for their slots) and the gas it uses with it, as geth answers: { accessList, gasUsed, error? }.',
      params: [param('call', CallObject), optionalParam('block', BlockParamSchema)],
      result: EthResult('{ accessList, gasUsed, error? }'),
      errors: ['pruned'],
      handler: ([call, block], { service }) => service.eth.createAccessList(call as EthCallObject, block),
    }),
    method({
      name: 'eth_getBlockReceipts',
      summary:
        "Every receipt of a block's Ethereum transactions (and system transactions), in order, by number, tag or hash; null for a block not made yet.",
      params: [param('block', Type.Union([BlockParamSchema, Hash32Schema]))],
      result: EthResult('the receipts, or null'),
      errors: ['pruned'],
      handler: ([b], { service }) => service.eth.blockReceipts(b),
    }),
    method({
      name: 'eth_getBlockTransactionCountByNumber',
      summary: 'How many Ethereum transactions a block holds; null for one not made yet.',
      params: [param('block', BlockParamSchema)],
      result: EthResult('a quantity, or null'),
      handler: async ([b], { service }) => service.eth.transactionCountOf(await service.eth.heightOf(b)),
    }),
    method({
      name: 'eth_getBlockTransactionCountByHash',
      summary: 'How many Ethereum transactions a block holds; null when unknown.',
      params: [param('hash', Hash32Schema)],
      result: EthResult('a quantity, or null'),
      handler: async ([h], { service }) =>
        service.eth.transactionCountOf((await service.rules.chain.getBlockByHash(h.toLowerCase()))?.height),
    }),
    method({
      name: 'eth_getLogs',
      summary:
        'Logs of Ethereum transactions by block range (at most 10,000 blocks and 10,000 logs), addresses and topics.',
      params: [param('filter', Filter)],
      result: EthResult('logs'),
      handler: ([f], { service }) => service.eth.logs(f as LogFilter),
    }),
    method({
      name: 'eth_newFilter',
      summary: 'A poll filter of logs; poll it with eth_getFilterChanges.',
      params: [param('filter', Filter)],
      result: Type.String(),
      handler: ([f], { service }) => service.filters.newLogFilter(f as LogFilter),
    }),
    method({
      name: 'eth_newBlockFilter',
      summary: 'A poll filter of new block hashes.',
      params: [],
      result: Type.String(),
      handler: (_p, { service }) => service.filters.newBlockFilter(service.eth.index.indexedTo),
    }),
    method({
      name: 'eth_newPendingTransactionFilter',
      summary: 'A poll filter of pending Ethereum transaction hashes.',
      params: [],
      result: Type.String(),
      handler: (_p, { service }) => service.filters.newPendingFilter(),
    }),
    method({
      name: 'eth_getFilterChanges',
      summary: 'What a filter matched since it was last polled (filters not polled for 5 minutes are dropped).',
      params: [param('id', Type.String())],
      result: EthResult('logs, block hashes or transaction hashes'),
      handler: ([id], { service }) =>
        service.filters.changes(id, async (height) => (await service.rules.chain.getBlock(height))!.hash),
    }),
    method({
      name: 'eth_getFilterLogs',
      summary: "Every log a log filter's range holds.",
      params: [param('id', Type.String())],
      result: EthResult('logs'),
      handler: ([id], { service }) => service.filters.logs(id),
    }),
    method({
      name: 'eth_uninstallFilter',
      summary: 'Removes a poll filter: true, or false if unknown.',
      params: [param('id', Type.String())],
      result: Type.Boolean(),
      handler: ([id], { service }) => service.filters.uninstall(id),
    }),
  ];
}
