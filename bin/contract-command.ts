import { readFileSync } from 'node:fs';
import type { CAC } from 'cac';
import type { Abi, AbiFunction, AbiParameter } from 'viem';
import { accountAddress, isValidAddress, isValidEthAddress, toEthAddress } from '../sdk/address.js';
import { MAX_TRANSACTION_GAS, RpcError, type KeyPair, type SvcClient } from '../sdk/index.js';
import { amountOption, integerText, optionText, UsageError } from './cli-args.js';
import { waitingFor } from './wait-for.js';

export interface ContractCommandContext<O> {
  readonly client: (options: O) => SvcClient;
  readonly signer: (options: O) => KeyPair;
  readonly print: (options: O, value: unknown, human: () => string) => void;
  /** ` --url <url>` as typed (empty for the default). */
  readonly urlFlag: (options: O) => string;
}

type ContractOptions = {
  args?: unknown;
  value?: unknown;
  gasLimit?: unknown;
  wait?: boolean;
  event?: unknown;
  fromBlock?: unknown;
  toBlock?: unknown;
  keyFile?: unknown;
  devAccount?: unknown;
  abi?: unknown;
};

const plain = (value: unknown): unknown =>
  typeof value === 'bigint' ? value.toString() : Array.isArray(value) ? value.map(plain) : value;

/** A contract file: creation bytecode as hex text (`.bin`), or a compiler artifact (`.json`: `abi` and `bytecode`, Foundry's `bytecode.object` too). */
function readContractFile(path: string): { bytecode: `0x${string}`; abi?: Abi } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new UsageError(
      `${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (!text.startsWith('{')) {
    const hex = text.startsWith('0x') ? text : `0x${text}`;
    if (!/^0x([0-9a-fA-F]{2})+$/.test(hex))
      throw new UsageError(`${path}: expected creation bytecode as hex, or a JSON artifact with "abi" and "bytecode"`);
    return { bytecode: hex as `0x${string}` };
  }
  const artifact = JSON.parse(text) as { abi?: Abi; bytecode?: string | { object?: string } };
  const code = typeof artifact.bytecode === 'string' ? artifact.bytecode : artifact.bytecode?.object;
  if (!code) throw new UsageError(`${path}: the artifact has no "bytecode"`);
  return {
    bytecode: (code.startsWith('0x') ? code : `0x${code}`) as `0x${string}`,
    ...(artifact.abi ? { abi: artifact.abi } : {}),
  };
}

/** An ABI from `--abi`: a compiler artifact's `abi`, or a JSON ABI array. */
function readAbiFile(path: string): Abi {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `--abi ${path}: cannot read it as JSON (${(error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0]})`,
    );
  }
  const abi = Array.isArray(parsed) ? parsed : (parsed as { abi?: unknown } | null)?.abi;
  if (!Array.isArray(abi)) throw new UsageError(`--abi ${path}: expected a JSON ABI array, or an artifact with "abi"`);
  return abi as Abi;
}

/**
 * The function a signature names: with an ABI, its entry there (a bare name will do when the ABI has
 * one function of that name and argument count) — which brings the return types; else as written.
 */
function functionIn(viem: Viem, signature: string, abi: Abi | undefined, argCount: number): AbiFunction {
  const functions = (abi ?? []).filter((item): item is AbiFunction => item.type === 'function');
  if (/^\s*\w+\s*$/.test(signature) && abi) {
    const named = functions.filter((f) => f.name === signature.trim());
    const fitting = named.length > 1 ? named.filter((f) => f.inputs.length === argCount) : named;
    if (fitting.length === 1) return fitting[0]!;
    throw new UsageError(
      named.length === 0
        ? `the ABI has no function "${signature.trim()}"`
        : `the ABI has ${named.length} functions "${signature.trim()}": write the signature, e.g. "${signature.trim()}(${named[0]!.inputs.map((i) => i.type).join(',')})"`,
    );
  }
  const written = functionOf(viem, signature);
  const types = (f: AbiFunction) => f.inputs.map((i) => i.type).join(',');
  return functions.find((f) => f.name === written.name && types(f) === types(written)) ?? written;
}

/** viem's ABI parsing, loaded by the contract commands only (every other `svc` command starts without it). */
type Viem = typeof import('viem');

/** `balanceOf(address)(uint256)` as cast writes it, or a human-readable ABI item (`function f(uint) view returns (bool)`). */
function functionOf({ parseAbiItem }: Viem, signature: string): AbiFunction {
  const cast = /^\s*(\w+)\s*\(([^)]*)\)\s*(?:\(([^)]*)\))?\s*$/.exec(signature);
  const text = cast
    ? `function ${cast[1]}(${cast[2]}) ${cast[3] !== undefined ? `view returns (${cast[3]})` : ''}`.trim()
    : signature;
  try {
    const item = parseAbiItem(text.startsWith('function') ? text : `function ${text}`);
    if (item.type !== 'function') throw new Error('not a function');
    return item;
  } catch (error) {
    throw new UsageError(
      `"${signature}": expected a function signature like "balanceOf(address)(uint256)" or "transfer(address,uint256)" (${(error as Error).message.split('\n')[0]})`,
    );
  }
}

/** An argument as typed, turned into the value its ABI type takes (numbers as bigints, addresses svc1… or 0x…, arrays as JSON). */
function argumentOf(parameter: AbiParameter, text: unknown, index: number): unknown {
  const type = parameter.type;
  const where = `argument ${index + 1} (${type})`;
  if (type.endsWith(']') || type.startsWith('tuple')) {
    const value = typeof text === 'string' ? (JSON.parse(text) as unknown) : text;
    if (!Array.isArray(value)) throw new UsageError(`${where}: expected a JSON array, got ${JSON.stringify(text)}`);
    const inner = { ...parameter, type: type.replace(/\[\d*\]$/, '') } as AbiParameter;
    return type.startsWith('tuple') ? value : value.map((v, i) => argumentOf(inner, v, i));
  }
  const value = String(text);
  if (/^u?int\d*$/.test(type)) {
    if (!/^-?\d+$/.test(value) && !/^0x[0-9a-fA-F]+$/.test(value))
      throw new UsageError(`${where}: expected a whole number, got "${value}"`);
    return BigInt(value);
  }
  if (type === 'bool') {
    if (value !== 'true' && value !== 'false') throw new UsageError(`${where}: expected true or false, got "${value}"`);
    return value === 'true';
  }
  if (type === 'address') {
    if (!isValidAddress(value) && !isValidEthAddress(value))
      throw new UsageError(`${where}: expected an svc1… or 0x… address, got "${value}"`);
    return toEthAddress(value, true);
  }
  if (type.startsWith('bytes') && !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw new UsageError(`${where}: expected 0x hex, got "${value}"`);
  return value;
}

function argumentsOf(inputs: readonly AbiParameter[], texts: readonly unknown[], what: string): unknown[] {
  if (texts.length !== inputs.length)
    throw new UsageError(
      `${what} takes ${inputs.length} argument${inputs.length === 1 ? '' : 's'} (${inputs.map((i) => i.type).join(', ')}), got ${texts.length}`,
    );
  return inputs.map((input, i) => argumentOf(input, texts[i], i));
}

function addressArgument(text: string | undefined): string {
  if (text === undefined || (!isValidAddress(text) && !isValidEthAddress(text)))
    throw new UsageError(`expected a contract address (svc1… or 0x…), got "${text ?? ''}"`);
  return accountAddress(text);
}

/** What the node kept of an ABI (svc_setContractAbi): the entries its code bears out. */
interface KeptAbi {
  readonly address: string;
  readonly kept: number;
  readonly dropped: number;
}

const keepAbi = (api: SvcClient, address: string, abi: Abi): Promise<KeptAbi> =>
  api.rpcCall<KeptAbi>('svc_setContractAbi', [address, abi]);
const reasonOf = (error: unknown): string =>
  error instanceof RpcError && typeof error.data?.reason === 'string' ? error.data.reason : (error as Error).message;
const abiLine = ({ kept, dropped }: KeptAbi): string =>
  `ABI kept by the node for its explorer: ${kept} entries${dropped > 0 ? ` (${dropped} not in the code, or a constructor, left out)` : ''}`;

const gasOption = (options: ContractOptions) =>
  options.gasLimit === undefined
    ? {}
    : { gasLimit: integerText(options.gasLimit, '--gas-limit', 21_000, MAX_TRANSACTION_GAS) };
const valueOption = (options: ContractOptions) =>
  options.value === undefined ? {} : { value: amountOption(options.value, '--value', 'OMC') };

/**
 * `svc contract deploy|call|send|logs|abi`: contracts through the SDK and native transactions (signed
 * with --dev-account or --key-file), with cast's way of writing a function.
 */
export function addContractCommand<O extends object>(cli: CAC, ctx: ContractCommandContext<O & ContractOptions>): void {
  cli
    .command(
      'contract <action> [...rest]',
      'contracts: `contract deploy <file.bin|file.json>`, `contract call <address> "<signature>" [args]`, `contract send <address> "<signature>" [args]`, `contract logs <address>`, `contract abi <address> <artifact.json>` (the node keeps the ABI for its explorer)',
    )
    .option('--args <json>', 'deploy: constructor arguments as a JSON array (needs a .json artifact with the ABI)')
    .option('--value <OMC>', 'deploy and send: OMC sent along, e.g. 1.5')
    .option('--gas-limit <gas>', "deploy and send: gas limit (default: the node's estimate)")
    .option('--wait', 'deploy and send: wait for the receipt')
    .option(
      '--event <signature>',
      'logs: decode with this event, e.g. "Transfer(address indexed,address indexed,uint256)" (also filters by it)',
    )
    .option('--from-block <n>', 'logs: first block (default 0)')
    .option('--to-block <n>', 'logs: last block (default the head)')
    .option(
      '--abi <file>',
      "call and send: the contract's ABI (a compiler artifact or a JSON ABI array): return values and custom errors decoded with it, and a function named by its name alone",
    )
    .option('--key-file <file>', "deploy and send: the signer's key file")
    .option('--dev-account <index>', 'deploy and send: sign with devnet dev account 0-9')
    .example('svc contract deploy Token.json --args \'["1000000"]\' --dev-account 0 --wait')
    .example('svc contract call 0x5FbDB2315678afecb367f032d93F642f64180aa3 "balanceOf(address)(uint256)" svc1…')
    .action(async (action: string, rest: unknown[], options: ContractOptions & O) => {
      const api = ctx.client(options);
      const viem = await import('viem');
      const { withDecodedRevert } = await import('../sdk/contracts.js');
      const texts = rest.map(String);
      const wait = async (hash: string) =>
        options.wait
          ? waitingFor({ noun: 'transaction', id: hash, followUp: `svc receipt ${hash}${ctx.urlFlag(options)}` }, () =>
              api.waitForTransaction(hash),
            )
          : undefined;
      const failed = (
        receipt: { status: string; error?: { reason: string }; revert?: string } | undefined,
        abi: Abi = [],
      ) => {
        if (receipt?.status !== 'failed') return;
        const error = new RpcError(-32080, 'execution_reverted', {
          reason: receipt.error?.reason ?? 'the transaction failed',
          ...(receipt.revert ? { revert: receipt.revert } : {}),
        });
        throw withDecodedRevert(error, abi);
      };
      if (action === 'deploy') {
        const [file, ...extra] = texts;
        if (!file || extra.length > 0)
          throw new UsageError(
            'usage: svc contract deploy <file.bin|file.json> [--args <json array>] [--value <OMC>] [--wait]',
          );
        const { bytecode, abi } = readContractFile(file);
        const argsText = optionText(options.args, '--args');
        if (argsText !== undefined && !abi)
          throw new UsageError('--args needs the ABI: give a .json artifact with "abi" and "bytecode"');
        let args: unknown[] = [];
        if (argsText !== undefined && abi) {
          const constructorAbi = abi.find((item) => item.type === 'constructor') as
            | { inputs: readonly AbiParameter[] }
            | undefined;
          let parsed: unknown;
          try {
            parsed = JSON.parse(argsText);
          } catch {
            throw new UsageError(`--args: expected a JSON array, got "${argsText}"`);
          }
          if (!Array.isArray(parsed)) throw new UsageError(`--args: expected a JSON array, got "${argsText}"`);
          args = argumentsOf(constructorAbi?.inputs ?? [], parsed, 'the constructor');
        }
        const deployed = await api.deployContract(ctx.signer(options), {
          bytecode,
          ...(abi ? { abi } : {}),
          args,
          ...valueOption(options),
          ...gasOption(options),
        });
        const receipt = await wait(deployed.txHash);
        failed(receipt);
        const address = receipt?.contractAddress ?? deployed.address;
        // Mined with an artifact's ABI: the node keeps it, and its explorer decodes the contract's events and errors.
        const kept =
          receipt?.status === 'success' && abi
            ? await keepAbi(api, address, abi).catch(
                (error: unknown) =>
                  void process.stderr.write(
                    `svc: the contract is deployed, but the node did not keep its ABI: ${reasonOf(error)}\n`,
                  ),
              )
            : undefined;
        ctx.print(
          options,
          {
            ...deployed,
            address,
            ethAddress: toEthAddress(address, true),
            ...(receipt ? { blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed } : {}),
            ...(kept ? { abi: kept } : {}),
          },
          () =>
            [
              `contract ${toEthAddress(address, true)} (${address})`,
              `transaction ${deployed.txHash}${receipt ? ` mined in block ${receipt.blockNumber}, ${receipt.gasUsed} gas` : ' sent (--wait for its receipt)'}`,
              ...(kept ? [abiLine(kept)] : []),
            ].join('\n'),
        );
        return;
      }
      if (action === 'abi') {
        const [target, file, ...extra] = texts;
        if (!file || extra.length > 0)
          throw new UsageError('usage: svc contract abi <address> <artifact.json|abi.json>');
        const kept = await keepAbi(api, addressArgument(target), readAbiFile(file));
        ctx.print(options, kept, () => abiLine(kept));
        return;
      }
      if (action === 'call' || action === 'send') {
        const [target, signature, ...argTexts] = texts;
        if (signature === undefined)
          throw new UsageError(`usage: svc contract ${action} <address> "<signature>" [args...]`);
        const address = addressArgument(target);
        const abi = options.abi === undefined ? undefined : readAbiFile(optionText(options.abi, '--abi')!);
        const fn = functionIn(viem, signature, abi, argTexts.length);
        // The ABI's errors go along: a revert with a custom error is decoded by name.
        const errors = (abi ?? []).filter((item) => item.type === 'error');
        const call = {
          address,
          abi: [fn, ...errors] as Abi,
          functionName: fn.name,
          args: argumentsOf(fn.inputs, argTexts, fn.name),
        };
        if (action === 'call') {
          if (fn.outputs.length === 0) {
            // No return types given: the bytes as they came, as cast prints them (decoding them as nothing would print "undefined").
            const { output } = await api.rpcCall<{ output: string }>('svc_call', [
              { to: address, data: viem.encodeFunctionData(call) },
            ]);
            ctx.print(options, { result: output }, () => output);
            return;
          }
          const result = await api.readContract(call);
          ctx.print(options, { result: plain(result) }, () =>
            Array.isArray(result) ? result.map((r) => String(plain(r))).join('\n') : String(plain(result)),
          );
          return;
        }
        const tx = await api.callContract(ctx.signer(options), {
          ...call,
          ...valueOption(options),
          ...gasOption(options),
        });
        const receipt = await wait(tx.hash);
        failed(receipt, call.abi);
        ctx.print(
          options,
          {
            txHash: tx.hash,
            ...(receipt
              ? { blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, logs: receipt.logs?.length ?? 0 }
              : {}),
          },
          () =>
            receipt
              ? `transaction ${tx.hash} mined in block ${receipt.blockNumber}, ${receipt.gasUsed} gas, ${receipt.logs?.length ?? 0} logs`
              : `transaction ${tx.hash} sent (--wait for its receipt)`,
        );
        return;
      }
      if (action === 'logs') {
        const [target, ...extra] = texts;
        if (extra.length > 0)
          throw new UsageError(
            'usage: svc contract logs <address> [--event "<signature>"] [--from-block N] [--to-block N]',
          );
        const address = addressArgument(target);
        const eventText = optionText(options.event, '--event');
        let event: Abi | undefined;
        if (eventText !== undefined) {
          try {
            event = [viem.parseAbiItem(eventText.startsWith('event') ? eventText : `event ${eventText}`)] as Abi;
          } catch (error) {
            throw new UsageError(
              `--event "${eventText}": expected an event signature like "Transfer(address indexed,address indexed,uint256)" (${(error as Error).message.split('\n')[0]})`,
            );
          }
        }
        const fromBlock = options.fromBlock === undefined ? 0 : integerText(options.fromBlock, '--from-block');
        const toBlock = options.toBlock === undefined ? undefined : integerText(options.toBlock, '--to-block');
        const logs = await api.getLogs({ address, fromBlock, ...(toBlock !== undefined ? { toBlock } : {}) });
        const shown = logs.flatMap((log): (typeof log & { event?: string; args?: unknown })[] => {
          if (!event) return [{ ...log }];
          try {
            const decoded = viem.decodeEventLog({
              abi: event,
              data: log.data as `0x${string}`,
              topics: log.topics as [`0x${string}`],
            });
            return [{ ...log, event: decoded.eventName, args: plain(Object.values(decoded.args ?? {})) }];
          } catch {
            return [];
          }
        });
        ctx.print(options, shown, () =>
          shown.length === 0
            ? 'no logs'
            : shown
                .map(
                  (log) =>
                    `block ${log.blockNumber} tx ${log.transactionHash} #${log.logIndex}: ${log.event ? `${log.event}(${(log.args as unknown[]).join(', ')})` : `topics ${log.topics.join(' ')} data ${log.data}`}`,
                )
                .join('\n'),
        );
        return;
      }
      throw new UsageError(`unknown contract action "${action}": deploy, call, send, logs or abi`);
    });
}
