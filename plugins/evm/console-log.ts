import { format } from 'node:util';
import { decodeAbiParameters, getAddress, toFunctionSelector, type AbiParameter } from 'viem';
import { toHex } from '../../sdk/bytes.js';

/**
 * Hardhat's console.sol (`import "hardhat/console.sol"`; forge-std's console is the same): a contract's
 * `console.log(...)` is a static call to this address with the arguments ABI-encoded. No code lives
 * there, so the call does nothing on chain; a dev node reads the calls and prints them.
 */
export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67';
const CONSOLE_BYTES = Uint8Array.from(Buffer.from(CONSOLE_ADDRESS.slice(2), 'hex'));

/** Whether a call's address is the console's. */
export function isConsole(address: Uint8Array): boolean {
  if (address.length !== 20 || address[19] !== 0x67 || address[9] !== 0x63) return false;
  for (let i = 0; i < 20; i++) if (address[i] !== CONSOLE_BYTES[i]) return false;
  return true;
}

const BASIC = ['uint256', 'string', 'bool', 'address'] as const;

/** Every console.sol function by selector: its parameter types. */
function consoleFunctions(): Map<string, readonly string[]> {
  const table = new Map<string, readonly string[]>();
  const add = (name: string, types: readonly string[]) => {
    table.set(toFunctionSelector(`${name}(${types.join(',')})`), types);
    // Its first versions named uint256 and int256 `uint` and `int` in the signature it hashed.
    const legacy = types.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t));
    if (legacy.some((t, i) => t !== types[i])) table.set(toFunctionSelector(`${name}(${legacy.join(',')})`), types);
  };
  add('log', []);
  for (const type of ['int256', 'uint256', 'string', 'bool', 'address', 'bytes']) add('log', [type]);
  for (const [name, type] of [
    ['logInt', 'int256'],
    ['logUint', 'uint256'],
    ['logString', 'string'],
    ['logBool', 'bool'],
    ['logAddress', 'address'],
    ['logBytes', 'bytes'],
  ] as const)
    add(name, [type]);
  for (let n = 1; n <= 32; n++) add(`logBytes${n}`, [`bytes${n}`]);
  const combos = (length: number): string[][] =>
    length === 0 ? [[]] : combos(length - 1).flatMap((rest) => BASIC.map((t) => [...rest, t]));
  for (const length of [2, 3, 4]) for (const types of combos(length)) add('log', types);
  return table;
}

let functions: Map<string, readonly string[]> | undefined;

/** A value as console.log prints it. */
function shown(value: unknown, type: string): string {
  if (type === 'address') return getAddress(value as string);
  if (typeof value === 'bigint') return value.toString();
  return String(value);
}

/**
 * A console.log call's line, as Hardhat prints it: the first argument a format string when it is one
 * (`%s`, `%d`, `%i`, `%o`), the rest after it with a space. Undefined for bytes that are no console.sol
 * call.
 */
export function consoleLine(input: Uint8Array): string | undefined {
  if (input.length < 4) return undefined;
  functions ??= consoleFunctions();
  const types = functions.get(toHex(input.subarray(0, 4)));
  if (!types) return undefined;
  let values: readonly unknown[];
  try {
    values = decodeAbiParameters(
      types.map((type) => ({ type }) as AbiParameter),
      toHex(input.subarray(4)) as `0x${string}`,
    );
  } catch {
    return undefined;
  }
  const args = values.map((value, i) => shown(value, types[i]!));
  return types[0] === 'string' ? format(...(args as [string, ...string[]])) : args.join(' ');
}
