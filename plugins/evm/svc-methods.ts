import Type, { type Static } from 'typebox';
import { addressPattern, accountAddress, addressOfHex, hexOfAddress } from '../../sdk/address.js';
import { toHex } from '../../sdk/bytes.js';
import { domainError } from '../../sdk/errors.js';
import {
  optionalParam,
  param,
  type MethodFactory,
  type RpcMethod,
  type SubscriptionFactory,
  type SubscriptionKind,
} from '../../kernel/plugin.js';
import { BlockTagSchema } from '../../chain/schemas.js';
import type { BlockTag } from '../../sdk/api.js';
import { LogSchema } from '../../chain/receipts.js';
import type { EvmPlugin } from './plugin-service.js';
import type { EvmOutcome } from './runner.js';
import { entryOf, type IndexedLog } from './eth/block-index.js';
import { codeAt, logMatches, type EthCallObject, type LogFilter, type SvcLogView } from './eth/api.js';
import { contractKey, decodeContract } from './state.js';
import { qty } from './eth/quantity.js';
import { EthRpcError } from './eth/errors.js';
import { revertReason } from './revert-reason.js';

/** An account as `svc_` methods take it: `svc1…` or `0x…` (the same 20 bytes). */
export const AnyAddress = Type.String({
  pattern: `(${addressPattern})|(^0x[0-9a-fA-F]{40}$)`,
  description: 'svc1… or 0x…',
  'x-error': 'invalid_address',
});
const Units = Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$' });
const Hex = Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$' });
const Topic = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });

const SvcCall = Type.Object(
  {
    from: Type.Optional(AnyAddress),
    to: Type.Optional(AnyAddress),
    data: Type.Optional(Hex),
    value: Type.Optional(Units),
    gasLimit: Type.Optional(Type.Integer({ minimum: 21_000 })),
  },
  { additionalProperties: false },
);

const SvcLogFilter = Type.Object(
  {
    fromBlock: Type.Optional(BlockTagSchema),
    toBlock: Type.Optional(BlockTagSchema),
    address: Type.Optional(Type.Union([AnyAddress, Type.Array(AnyAddress, { maxItems: 100 })])),
    topics: Type.Optional(Type.Array(Type.Union([Topic, Type.Null(), Type.Array(Topic)]), { maxItems: 4 })),
  },
  { additionalProperties: false },
);

const SvcLog = Type.Object(
  {
    ...LogSchema.properties,
    blockNumber: Type.Integer({ minimum: 0 }),
    blockHash: Type.String(),
    transactionHash: Type.String(),
    logIndex: Type.Integer({ minimum: 0, description: "position among the block's EVM logs" }),
  },
  { additionalProperties: false },
);

const toEthCall = (call: {
  from?: string;
  to?: string;
  data?: string;
  value?: string;
  gasLimit?: number;
}): EthCallObject => ({
  ...(call.from ? { from: call.from } : {}),
  ...(call.to ? { to: call.to } : {}),
  ...(call.data ? { data: call.data } : {}),
  ...(call.value ? { value: qty(BigInt(call.value)) } : {}),
  ...(call.gasLimit ? { gas: qty(call.gasLimit) } : {}),
});

const tagOf = (tag: BlockTag | undefined): string =>
  tag === undefined || tag === 'latest' || tag === 'finalized' ? 'latest' : tag === 'earliest' ? 'earliest' : qty(tag);

/** A failed call as the svc_ side says it: `execution_reverted` with the revert bytes and reason, `out_of_gas`. */
function failed(outcome: EvmOutcome): never {
  const failure = outcome.failure!;
  if (failure.name === 'execution_reverted') {
    const revert = outcome.result.execResult.returnValue;
    throw domainError('execution_reverted', revertReason(revert), {
      revert: toHex(revert),
      reason: revertReason(revert).replace(/^execution reverted:? ?/, '') || undefined,
    });
  }
  throw domainError(failure.name === 'out_of_gas' ? 'out_of_gas' : 'invalid_transaction', failure.reason);
}

const svcLog: SvcLogView = (log: IndexedLog, logIndex, block, transactionHash) => ({
  address: addressOfHex(log[1]),
  topics: [...log[2]],
  data: log[3],
  blockNumber: block.height,
  blockHash: block.hash,
  transactionHash,
  logIndex,
});

/** The contract methods on the svc_ side: svc1 addresses, decimal amounts, the node's error names. */
export function svcEvmMethods(method: MethodFactory<EvmPlugin>): RpcMethod[] {
  return [
    method({
      name: 'svc_call',
      summary:
        "Runs a contract call on a block's state without a transaction: the return data and the gas it used (the same bytes eth_call answers).",
      params: [param('call', SvcCall), optionalParam('blockNumber', BlockTagSchema)],
      result: Type.Object({ output: Hex, gasUsed: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
      errors: ['invalid_address', 'invalid_params', 'execution_reverted', 'out_of_gas', 'not_found', 'pruned'],
      handler: async ([call, tag], { service }) => {
        const outcome = await service.eth.simulate(toEthCall(call), tagOf(tag) as never);
        if (outcome.failure) failed(outcome);
        return { output: toHex(outcome.result.execResult.returnValue), gasUsed: outcome.gasUsed };
      },
    }),
    method({
      name: 'svc_estimateGas',
      summary:
        'The least gas limit with which a call succeeds: exact from one run when the call reads no gas, else within 1.5% by search (as eth_estimateGas).',
      params: [param('call', SvcCall), optionalParam('blockNumber', BlockTagSchema)],
      result: Type.Integer({ minimum: 21_000 }),
      errors: ['invalid_address', 'invalid_params', 'execution_reverted', 'out_of_gas', 'not_found', 'pruned'],
      handler: async ([call, tag], { service }) => {
        try {
          return Number(BigInt(await service.eth.estimateGas(toEthCall(call), tagOf(tag) as never)));
        } catch (error) {
          // The estimate answers in Ethereum's words; the svc_ side names its own errors.
          if (!(error instanceof EthRpcError)) throw error;
          const revert = error.revertData;
          if (revert !== undefined)
            throw domainError('execution_reverted', error.message, {
              revert,
              reason: error.message.replace(/^execution reverted:? ?/, '') || undefined,
            });
          throw domainError(
            /exceeds allowance|out of gas/.test(error.message) ? 'out_of_gas' : 'invalid_transaction',
            error.message,
          );
        }
      },
    }),
    method({
      name: 'svc_getCode',
      summary: "An account's contract code at a block (0x for an account without).",
      params: [param('address', AnyAddress), optionalParam('blockNumber', BlockTagSchema)],
      result: Hex,
      errors: ['invalid_address', 'not_found', 'pruned'],
      handler: ([address, tag], { service }) => service.eth.code(accountAddress(address), tagOf(tag) as never),
    }),
    method({
      name: 'svc_getContract',
      summary:
        'A contract account: its code hash and size, who created it and in which block (not_found for an account without code).',
      params: [param('address', AnyAddress), optionalParam('blockNumber', BlockTagSchema)],
      result: Type.Object(
        {
          address: Type.String({ pattern: addressPattern }),
          codeHash: Type.String({ pattern: '^0x[0-9a-f]{64}$' }),
          codeSize: Type.Integer({ minimum: 0 }),
          creator: Type.String({
            pattern: addressPattern,
            description: 'the sender of the transaction that created it',
          }),
          createdAt: Type.Integer({ minimum: 0, description: 'the block it was created in' }),
        },
        { additionalProperties: false },
      ),
      errors: ['invalid_address', 'not_found', 'pruned'],
      handler: async ([raw, tag], { service }) => {
        const address = accountAddress(raw);
        const read = service.eth.reader(await service.eth.stateHeightOf(tagOf(tag)));
        const record = decodeContract(await read(contractKey(address.slice(4))));
        const code = record ? await codeAt(read, address) : new Uint8Array(0);
        if (!record || code.length === 0)
          throw domainError('not_found', `${address} holds no contract code`, { address });
        return {
          address,
          codeHash: toHex(record.codeHash),
          codeSize: code.length,
          creator: record.creator,
          createdAt: record.createdAt,
        };
      },
    }),
    method({
      name: 'svc_getStorageAt',
      summary: "A contract's storage slot at a block (32 bytes).",
      params: [
        param('address', AnyAddress),
        param('slot', Type.String({ pattern: '^0x[0-9a-fA-F]{1,64}$' })),
        optionalParam('blockNumber', BlockTagSchema),
      ],
      result: Topic,
      errors: ['invalid_address', 'not_found', 'pruned'],
      handler: ([address, slot, tag], { service }) =>
        service.eth.storageAt(accountAddress(address), slot, tagOf(tag) as never),
    }),
    method({
      name: 'svc_getLogs',
      summary:
        'EVM logs by block range (at most 10,000 blocks), emitting contracts and topics: those of every EVM transaction, native ones too.',
      params: [param('filter', SvcLogFilter)],
      result: Type.Array(SvcLog),
      errors: ['invalid_address', 'invalid_params'],
      handler: async ([filter], { service }) => {
        const addresses =
          filter.address === undefined
            ? undefined
            : (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) =>
                hexOfAddress(accountAddress(a)),
              );
        const ethFilter: LogFilter = {
          fromBlock: tagOf(filter.fromBlock ?? 'earliest'),
          toBlock: tagOf(filter.toBlock),
          ...(addresses ? { address: addresses } : {}),
          ...(filter.topics ? { topics: filter.topics } : {}),
        };
        try {
          return (await service.eth.logs(ethFilter, svcLog)) as Static<typeof SvcLog>[];
        } catch (error) {
          if ((error as { code?: number }).code === -32005)
            throw domainError('invalid_params', (error as Error).message, { field: 'filter' });
          throw error;
        }
      },
    }),
  ];
}

/** `svc_subscribe ["logs", { address?, topics? }]`: every EVM log of committed blocks, native transactions' too. */
export function svcLogsSubscription(kind: SubscriptionFactory<EvmPlugin>): SubscriptionKind {
  return kind({
    kind: 'logs',
    summary: 'EVM logs of committed blocks that match { address?, topics? } (svc1 or 0x addresses)',
    options: Type.Object(
      {
        address: Type.Optional(Type.Union([AnyAddress, Type.Array(AnyAddress)])),
        topics: Type.Optional(Type.Array(Type.Union([Topic, Type.Null(), Type.Array(Topic)]), { maxItems: 4 })),
      },
      { additionalProperties: false },
    ),
    start: (sink, options, _service, events) => {
      const address =
        options?.address === undefined
          ? undefined
          : (Array.isArray(options.address) ? options.address : [options.address]).map((a) =>
              hexOfAddress(accountAddress(a)),
            );
      const filter = { ...(address ? { address } : {}), ...(options?.topics ? { topics: options.topics } : {}) };
      return events.on('chain:block', ({ block, receipts }) => {
        const entry = entryOf(receipts);
        entry?.logs.forEach((log, i) => {
          if (logMatches(log, filter))
            sink.send(
              svcLog(log, i, { hash: block.hash, height: block.height }, log[4] ?? entry.transactions[log[0]]!),
            );
        });
      });
    },
  });
}
