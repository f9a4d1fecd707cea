import {
  decodeErrorResult,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Abi,
} from 'viem';
import { accountAddress, toEthAddress, type Address } from './address.js';
import { DOMAIN_ERRORS, RpcError } from './errors.js';
import type { Payload } from './transaction.js';

/** A contract to deploy: its creation bytecode, and with its ABI the constructor's arguments. */
export interface DeployRequest {
  readonly bytecode: `0x${string}`;
  readonly abi?: Abi;
  readonly args?: readonly unknown[];
  /** OMC base units sent to the new contract. */
  readonly value?: bigint;
  /** Gas limit; by default the node's estimate. */
  readonly gasLimit?: number;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
}

/** A function of a deployed contract, by its ABI. */
export interface ContractCall {
  /** svc1… or 0x… */
  readonly address: string;
  readonly abi: Abi;
  readonly functionName: string;
  readonly args?: readonly unknown[];
  readonly value?: bigint;
  readonly gasLimit?: number;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
}

/** A contract account as `svc_getContract` describes it. */
export interface ContractView {
  readonly address: Address;
  readonly codeHash: string;
  readonly codeSize: number;
  readonly creator: Address;
  readonly createdAt: number;
}

export interface Log {
  readonly address: Address;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: number;
  readonly blockHash: string;
  readonly transactionHash: string;
  readonly logIndex: number;
}

export function invalid(field: string, reason: string): RpcError {
  return new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', { reason, field });
}

/** The init code of a deployment: the bytecode with the encoded constructor arguments. */
export function deployData(request: DeployRequest): `0x${string}` {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(request.bytecode))
    throw invalid('bytecode', 'bytecode must be 0x hex of whole bytes');
  if (!request.abi) {
    if (request.args?.length) throw invalid('abi', 'constructor arguments need the ABI to encode them');
    return request.bytecode;
  }
  try {
    return encodeDeployData({ abi: request.abi, bytecode: request.bytecode, args: request.args ?? [] } as never);
  } catch (error) {
    throw invalid('args', `cannot encode the constructor arguments: ${(error as Error).message.split('\n')[0]}`);
  }
}

export function callData(call: ContractCall): `0x${string}` {
  try {
    return encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args ?? [] } as never);
  } catch (error) {
    throw invalid('args', `cannot encode ${call.functionName}: ${(error as Error).message.split('\n')[0]}`);
  }
}

export function decodeResult(call: ContractCall, output: `0x${string}`): unknown {
  return decodeFunctionResult({ abi: call.abi, functionName: call.functionName, data: output } as never);
}

/** Fee fields of a native EVM payload, as decimal base units. */
function fees(request: { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }): Payload {
  return {
    ...(request.maxFeePerGas !== undefined ? { maxFeePerGas: request.maxFeePerGas.toString() } : {}),
    ...(request.maxPriorityFeePerGas !== undefined
      ? { maxPriorityFeePerGas: request.maxPriorityFeePerGas.toString() }
      : {}),
  };
}

export function createPayload(request: DeployRequest, code: string, gasLimit: number): Payload {
  return { code, value: (request.value ?? 0n).toString(), gasLimit, ...fees(request) };
}

export function callPayload(call: ContractCall, data: string, gasLimit: number): Payload {
  return { to: accountAddress(call.address), data, value: (call.value ?? 0n).toString(), gasLimit, ...fees(call) };
}

/** Where a deployment by `sender` with `nonce` puts the contract (CREATE: Keccak of the RLP of both). */
export function contractAddressOf(sender: string, nonce: number): Address {
  return accountAddress(getContractAddress({ from: toEthAddress(sender), nonce: BigInt(nonce) }));
}

/**
 * An `execution_reverted` error with a custom error of `abi` decoded into `data.reason` and
 * `data.error` (the node decodes `Error(string)` and `Panic` itself).
 */
export function withDecodedRevert(error: unknown, abi: Abi): unknown {
  if (!(error instanceof RpcError) || error.message !== 'execution_reverted' || typeof error.data?.revert !== 'string')
    return error;
  try {
    const decoded = decodeErrorResult({ abi, data: error.data.revert as `0x${string}` });
    const args = (decoded.args ?? []).map((a) => (typeof a === 'bigint' ? a.toString() : a));
    return new RpcError(error.code, error.message, {
      ...error.data,
      reason: `${decoded.errorName}(${args.join(', ')})`,
      error: { name: decoded.errorName, args },
    });
  } catch {
    return error;
  }
}
