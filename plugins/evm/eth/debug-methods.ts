import Type from 'typebox';
import { optionalParam, param, type MethodFactory, type RpcMethod } from '../../../kernel/plugin.js';
import type { EvmPlugin } from '../plugin-service.js';
import type { EthCallObject } from './api.js';
import { BlockParamSchema } from './block-tag.js';
import { CallObject } from './methods.js';
import { EthResult, Hash32Schema } from './quantity.js';
import type { TraceConfig } from './trace-api.js';

const TraceConfigSchema = Type.Object(
  {
    tracer: Type.Optional(Type.String({ description: 'absent for the struct logger, or "callTracer"' })),
    tracerConfig: Type.Optional(
      Type.Object(
        { onlyTopCall: Type.Optional(Type.Boolean()), withLog: Type.Optional(Type.Boolean()) },
        { additionalProperties: true },
      ),
    ),
    disableStack: Type.Optional(Type.Boolean()),
    disableStorage: Type.Optional(Type.Boolean()),
    enableMemory: Type.Optional(Type.Boolean()),
    enableReturnData: Type.Optional(Type.Boolean()),
    timeout: Type.Optional(
      Type.String({ description: 'how long the trace may take, as "5s" or "500ms" (default 5s, at most 30s)' }),
    ),
  },
  // geth's other options (reexec, limit, stateOverrides of other tracers) are taken and not used.
  { additionalProperties: true },
);

/**
 * geth's `debug_trace*` methods with the struct logger and `callTracer`: what explorers and
 * debugging tools read. Other tracers are refused by name.
 */
export function debugMethods(method: MethodFactory<EvmPlugin>): RpcMethod[] {
  return [
    method({
      name: 'debug_traceTransaction',
      summary:
        'Runs a mined EVM transaction again on the state it ran on and answers its trace: every opcode (the struct logger), or the call tree ({"tracer":"callTracer"}).',
      params: [param('hash', Hash32Schema), optionalParam('config', TraceConfigSchema)],
      result: EthResult(
        '{ gas, failed, returnValue, structLogs } or a callTracer frame { type, from, to, value, gas, gasUsed, input, output, error?, revertReason?, calls?, logs? }',
      ),
      errors: ['pruned'],
      handler: ([hash, config], { service }) => service.trace.transaction(hash, config as TraceConfig | undefined),
    }),
    method({
      name: 'debug_traceCall',
      summary: "Runs a call on a block's state, as eth_call does, and answers its trace (struct logger or callTracer).",
      params: [
        param('call', CallObject),
        optionalParam('block', BlockParamSchema),
        optionalParam('config', TraceConfigSchema),
      ],
      result: EthResult('as debug_traceTransaction'),
      errors: ['pruned'],
      handler: ([call, block, config], { service }) =>
        service.trace.call(call as EthCallObject, block, config as TraceConfig | undefined),
    }),
    method({
      name: 'debug_traceBlockByNumber',
      summary:
        'Traces every Ethereum transaction of a block, in order, as debug_traceTransaction does: [{ txHash, result }] (or { txHash, error } for one that cannot be traced); null for a block not made yet.',
      params: [param('block', BlockParamSchema), optionalParam('config', TraceConfigSchema)],
      result: EthResult('[{ txHash, result } | { txHash, error }], or null'),
      errors: ['pruned'],
      handler: async ([block, config], { service }) => {
        const height = await service.eth.heightOf(block);
        return height === undefined
          ? null
          : service.trace.block(await service.eth.blockTransactions(height), config as TraceConfig | undefined);
      },
    }),
    method({
      name: 'debug_traceBlockByHash',
      summary: 'debug_traceBlockByNumber for the block with this hash; null when unknown.',
      params: [param('hash', Hash32Schema), optionalParam('config', TraceConfigSchema)],
      result: EthResult('[{ txHash, result } | { txHash, error }], or null'),
      errors: ['pruned'],
      handler: async ([hash, config], { service }) => {
        const found = await service.eth.blockNumberOfHash(hash);
        return found === undefined
          ? null
          : service.trace.block(await service.eth.blockTransactions(found), config as TraceConfig | undefined);
      },
    }),
  ];
}
