import { parentPort, workerData } from 'node:worker_threads';
import { createEVM, getActivePrecompiles, type PrecompileInput } from '@ethereumjs/evm';
import type { Hardfork } from '@ethereumjs/common';
import { evmCommon } from '../../chain/ethereum-envelope.js';
import { withNodeCrypto } from './native-crypto.js';
import type { OffloadReply, OffloadRequest } from './precompile-offload.js';

/**
 * Runs standard precompiles for the node's EVM off its main thread (see precompile-offload.ts): the
 * same @ethereumjs/evm functions, at the same chain id and hardfork, so the results are the same.
 */
const { chainId, hardfork } = workerData as { chainId: number; hardfork: Hardfork };
const common = withNodeCrypto(evmCommon(chainId, hardfork));
const evm = await createEVM({ common });
const active = getActivePrecompiles(common);

parentPort!.on('message', async ({ id, address, data, gasLimit }: OffloadRequest) => {
  let reply: OffloadReply;
  try {
    const run = active.get(address);
    if (!run) throw new Error(`no precompile at 0x${address} at ${hardfork}`);
    const result = await run({ data, gasLimit, common, _EVM: evm } as unknown as PrecompileInput);
    reply = {
      id,
      gasUsed: result.executionGasUsed,
      returnValue: result.returnValue,
      ...(result.exceptionError ? { error: result.exceptionError.error } : {}),
    };
  } catch (error) {
    reply = { id, thrown: (error as Error).message ?? String(error) };
  }
  parentPort!.postMessage(reply);
});
