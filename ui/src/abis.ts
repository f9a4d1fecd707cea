import type { Abi } from 'viem';
import { http } from './node.js';

/** Contracts whose ABI one page asks the node for, at most (a transaction's logs may name many). */
const MAX_CONTRACTS = 20;

/** An event or custom error decoded with a contract's ABI: its name and its arguments as text. */
export interface Decoded {
  readonly name: string;
  readonly args: readonly { readonly name: string; readonly value: string }[];
}

/**
 * The ABIs the node keeps for these contracts (given at deploy, `svc contract deploy`, or with
 * `svc_setContractAbi`), by address as given; contracts without one are left out.
 */
export async function contractAbis(addresses: readonly string[]): Promise<Map<string, Abi>> {
  const unique = [...new Set(addresses)].slice(0, MAX_CONTRACTS);
  const found = await Promise.all(
    unique.map((address) => http.rpcCall<Abi | null>('svc_getContractAbi', [address]).catch(() => null)),
  );
  return new Map(unique.flatMap((address, i) => (found[i] ? [[address, found[i]!] as const] : [])));
}

/** An argument as text: numbers in full, lists in brackets, structs as JSON. */
function text(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(text).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));
  return String(value);
}

function named(inputs: readonly { name?: string }[], args: unknown): Decoded['args'] {
  const values = Array.isArray(args)
    ? args
    : inputs.map((input, i) => (args as Record<string, unknown> | undefined)?.[input.name ?? String(i)]);
  return inputs.map((input, i) => ({ name: input.name || `#${i}`, value: text(values[i]) }));
}

/** A log decoded with its contract's ABI (viem loads only when a page has one to decode with). */
export async function decodeLog(
  abi: Abi,
  log: { topics: readonly string[]; data: string },
): Promise<Decoded | undefined> {
  const { decodeEventLog } = await import('viem');
  try {
    const event = decodeEventLog({
      abi,
      data: log.data as `0x${string}`,
      topics: log.topics as [`0x${string}`, ...`0x${string}`[]],
    });
    const item = abi.find((entry) => entry.type === 'event' && entry.name === event.eventName) as
      | { inputs: readonly { name?: string }[] }
      | undefined;
    return { name: event.eventName ?? '', args: named(item?.inputs ?? [], event.args) };
  } catch {
    return undefined;
  }
}

/** Revert bytes decoded as one of the ABI's custom errors. */
export async function decodeRevert(abi: Abi, revert: string): Promise<Decoded | undefined> {
  const { decodeErrorResult } = await import('viem');
  try {
    const error = decodeErrorResult({ abi, data: revert as `0x${string}` });
    const item = abi.find((entry) => entry.type === 'error' && entry.name === error.errorName) as
      | { inputs: readonly { name?: string }[] }
      | undefined;
    return { name: error.errorName, args: named(item?.inputs ?? [], error.args) };
  } catch {
    return undefined;
  }
}

/** `Name(a=1, b=svc1…)`. */
export const decodedText = ({ name, args }: Decoded): string =>
  `${name}(${args.map((arg) => `${arg.name}=${arg.value}`).join(', ')})`;
