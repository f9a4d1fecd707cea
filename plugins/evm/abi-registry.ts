import Type from 'typebox';
import { toEventSelector, toFunctionSelector, type AbiEvent, type AbiFunction, type AbiParameter } from 'viem';
import { addressPattern, accountAddress } from '../../sdk/address.js';
import { domainError } from '../../sdk/errors.js';
import { json, utf8Text } from '../../kernel/storage/codec.js';
import { defineLayout } from '../../kernel/storage/layout.js';
import { param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import type { EvmPlugin } from './plugin-service.js';
import { codeAt } from './eth/api.js';
import { AnyAddress } from './svc-methods.js';

/** A custom error's ABI entry. */
interface AbiError {
  readonly type: 'error';
  readonly name: string;
  readonly inputs: readonly AbiParameter[];
}

/** An ABI entry the registry keeps: a function, event or custom error of the contract. */
export type RegisteredAbiItem = AbiFunction | AbiEvent | AbiError;

export const EVM_ABIS = defineLayout(
  'evm.abis',
  utf8Text('contract address, svc1…'),
  json<RegisteredAbiItem[]>('the ABI entries of its code: functions, events, errors'),
);

const MAX_ABI_ITEMS = 1_000;
const MAX_ABI_BYTES = 512 * 1024;

const AbiItemSchema = Type.Object(
  { type: Type.String({ maxLength: 32 }), name: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: true },
);

/**
 * The constants a contract's code pushes: 4-byte ones (function and error selectors; shorter pushes
 * padded, as a selector with leading zero bytes is pushed short) and 32-byte ones (event topics, and a
 * selector already shifted into place by the optimizer).
 */
function pushedConstants(code: Uint8Array): { words4: Set<string>; words32: Set<string> } {
  const words4 = new Set<string>();
  const words32 = new Set<string>();
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc]!;
    if (op < 0x60 || op > 0x7f) continue;
    const size = op - 0x5f;
    const data = Buffer.from(code.subarray(pc + 1, pc + 1 + size));
    pc += size;
    if (size <= 4) words4.add(`0x${data.toString('hex').padStart(8, '0')}`);
    else if (size === 32) {
      const hex = `0x${data.toString('hex')}`;
      words32.add(hex);
      if (/^0x[0-9a-f]{8}0{56}$/.test(hex)) words4.add(hex.slice(0, 10));
    }
  }
  return { words4, words32 };
}

/**
 * The entries of `abi` that the contract's code bears out: a function or error whose selector it
 * pushes, an event whose topic it pushes. So an ABI given for a contract cannot name its events or
 * errors as something the code never emits. Constructors, fallbacks and anonymous events are left out.
 */
export function entriesInCode(
  abi: readonly unknown[],
  code: Uint8Array,
): { kept: RegisteredAbiItem[]; dropped: number } {
  const { words4, words32 } = pushedConstants(code);
  const kept: RegisteredAbiItem[] = [];
  for (const entry of abi) {
    const item = entry as RegisteredAbiItem;
    try {
      if ((item.type === 'function' || item.type === 'error') && words4.has(toFunctionSelector(item as AbiFunction)))
        kept.push(item);
      else if (item.type === 'event' && !item.anonymous && words32.has(toEventSelector(item))) kept.push(item);
    } catch {
      // Not a well-formed entry: left out like one the code does not bear out.
    }
  }
  return { kept, dropped: abi.length - kept.length };
}

/**
 * A small registry of contract ABIs, kept by this node for its explorer and tools (not consensus
 * state): `svc contract deploy` gives it a deployed contract's artifact, the explorer decodes that
 * contract's events and custom errors with it. Anyone may give an ABI; only entries the code bears
 * out are kept, and a later ABI replaces an earlier one.
 */
export function abiRegistryMethods(method: MethodFactory<EvmPlugin>): RpcMethod[] {
  return [
    method({
      name: 'svc_setContractAbi',
      summary:
        "Keeps a contract's ABI on this node, for its explorer and tools: only the functions, events and custom errors its code bears out (their selectors and topics are in the code); answers how many were kept and left out.",
      params: [
        param('address', AnyAddress),
        param(
          'abi',
          Type.Array(AbiItemSchema, {
            maxItems: MAX_ABI_ITEMS,
            description: 'a JSON ABI array (the "abi" of a compiler artifact)',
          }),
        ),
      ],
      result: Type.Object(
        {
          address: Type.String({ pattern: addressPattern }),
          kept: Type.Integer({ minimum: 1 }),
          dropped: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
      errors: ['invalid_address', 'invalid_params', 'not_found'],
      handler: async ([raw, abi], { service }) => {
        const address = accountAddress(raw);
        if (JSON.stringify(abi).length > MAX_ABI_BYTES)
          throw domainError('invalid_params', `the ABI is over ${MAX_ABI_BYTES / 1024} KiB`, { field: 'abi' });
        const code = await codeAt(service.eth.reader(await service.eth.stateHeightOf(undefined)), address);
        if (code.length === 0)
          throw domainError('not_found', `${address} holds no contract code (deployed yet?)`, { address });
        const { kept, dropped } = entriesInCode(abi, code);
        if (kept.length === 0)
          throw domainError(
            'invalid_params',
            `none of the ABI's ${abi.length} entries is in the code of ${address}: is it this contract's ABI?`,
            { field: 'abi' },
          );
        await service.abis.putNow(address, kept);
        return { address, kept: kept.length, dropped };
      },
    }),
    method({
      name: 'svc_getContractAbi',
      summary:
        "A contract's ABI as this node keeps it (given with svc_setContractAbi, or by `svc contract deploy`); null when it has none.",
      params: [param('address', AnyAddress)],
      result: Type.Union([Type.Array(AbiItemSchema), Type.Null()]),
      errors: ['invalid_address'],
      handler: async ([raw], { service }) => (await service.abis.get(accountAddress(raw))) ?? null,
    }),
  ];
}
