import { accountAddress, isValidEthAddress } from '../sdk/address.js';
import type { CAC } from 'cac';
import { readFileSync } from 'node:fs';
import { fromHex, isHex } from '../sdk/bytes.js';
import { keyPairFromSecret, type KeyPair } from '../sdk/keys.js';
import { formatAmountShort, parseAmount } from '../sdk/amount.js';

/** A mistake in what the user typed: one line, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `--rpc-max-body` -> `rpcMaxBody`, as cac names parsed options. */
function camel(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** The long flags (without dashes) that take a value, across every command of the CLI. */
export function valueFlags(cli: CAC): Set<string> {
  const flags = new Set<string>();
  for (const option of [...cli.globalCommand.options, ...cli.commands.flatMap((command) => command.options)]) {
    if (option.isBoolean) continue;
    for (const part of option.rawName.split(/[ ,]+/)) if (part.startsWith('--')) flags.add(part.slice(2));
  }
  return flags;
}

/**
 * Parses argv with cac, but hands every value option to the command as the exact text typed:
 * cac turns `--amount 0.000000000000000001` into the float 1e-18 and reads `--amount -1` as a flag,
 * so amounts, ports and counts would lose digits or meaning. A value given twice arrives as an array.
 */
export function parseArgs(cli: CAC, argv: readonly string[]): void {
  const flags = valueFlags(cli);
  const texts = new Map<string, string[]>();
  const rest: string[] = argv.slice(0, 2);
  const add = (flag: string, value: string): void =>
    void texts.set(camel(flag), [...(texts.get(camel(flag)) ?? []), value]);
  for (let i = 2; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(token);
    if (!match || !flags.has(match[1]!)) {
      rest.push(token);
      continue;
    }
    if (match[2] !== undefined) {
      add(match[1]!, match[2]);
      continue;
    }
    const next = argv[i + 1];
    // A value may start with one dash (`--amount -1` is a negative amount to refuse, not a flag).
    if (next === undefined || next.startsWith('--')) {
      rest.push(token);
      continue;
    }
    add(match[1]!, next);
    i++;
  }
  cli.parse(rest, { run: false });
  for (const [key, values] of texts) cli.options[key] = values.length === 1 ? values[0] : values;
}

/** One value of an option (refusing it given twice), as typed; undefined when absent. */
export function optionText(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new UsageError(`${flag}: given more than once`);
  if (typeof value !== 'string' || value === '') throw new UsageError(`${flag}: needs a value`);
  return value;
}

/** A whole number from `min` to `max`, from the text typed. */
export function integerText(value: unknown, flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const text = optionText(value, flag);
  const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(
      `${flag}: expected a whole number${max === Number.MAX_SAFE_INTEGER ? ` of at least ${min}` : ` from ${min} to ${max}`}, got "${text ?? ''}"`,
    );
  }
  return n;
}

/** A secret key from a file: `svc keys new --out` JSON, or 32 bytes of hex. */
export function readKeyFile(file: string, flag = file): KeyPair {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new UsageError(
      `${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    const secret = text.startsWith('{') ? (JSON.parse(text) as { secretKey?: unknown }).secretKey : text;
    if (typeof secret !== 'string' || !isHex(secret.startsWith('0x') ? secret : `0x${secret}`, 32))
      throw new Error('expected 32 bytes of hex, or a JSON key file with "secretKey"');
    return keyPairFromSecret(fromHex(secret));
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

/** `svc-node plugins | head`: a reader that stops early is not an error. */
export function exitQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/** A token amount as typed, by the SDK's decimal rules (at most 18 fractional digits), more than 0. */
export function amountOption(value: unknown, flag: string, unit: string): bigint {
  const text = optionText(value, flag);
  if (text === undefined) throw new UsageError(`${flag} <${unit}> is required`);
  let amount: bigint;
  try {
    amount = parseAmount(text);
  } catch {
    throw new UsageError(
      `${flag}: expected an amount of ${unit} like 1.5, with at most 18 fractional digits and no sign, got "${text}"`,
    );
  }
  if (amount <= 0n) throw new UsageError(`${flag}: must be more than 0 ${unit}`);
  // The chain takes amounts of at most 78 digits of base units: said here, not as a schema pattern from the node.
  if (amount > MAX_AMOUNT_UNITS)
    throw new UsageError(
      `${flag}: ${text} ${unit} is more than the largest amount the chain takes (${formatAmountShort(MAX_AMOUNT_UNITS)} ${unit})`,
    );
  return amount;
}

/** The largest amount a transaction carries: 78 decimal digits of base units. */
const MAX_AMOUNT_UNITS = 10n ** 78n - 1n;

/**
 * An account as typed: `0x…` (EIP-55 checked when mixed-case) becomes the `svc1…` name of the same
 * account; anything else goes to the node as typed, refused there in the node's words.
 */
export function accountText(value: unknown): string {
  const text = String(value);
  return isValidEthAddress(text) ? accountAddress(text) : text;
}
