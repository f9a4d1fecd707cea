import Type from 'typebox';
import { accountAddress, addressPattern, isValidEthAddress } from '../../sdk/address.js';
import type { TxKind, TxKindFactory } from '../../chain/contract.js';
import { ETHEREUM_KIND, type EthereumPayload } from '../../chain/ethereum-envelope.js';
import { nativeFields } from './service.js';
import type { EvmPlugin } from './plugin-service.js';
import { admitting, MAX_INITCODE_BYTES } from './admission.js';
import { Fees, GasLimit, HexBytes, MAX_CALLDATA_BYTES, Units } from './payload-schemas.js';

const Bytes = Type.Refine(
  Type.Unsafe<Uint8Array>({ description: 'bytes' }),
  (value) => value instanceof Uint8Array && value.length <= 1_048_576,
);

export const EvmCreatePayload = Type.Object(
  {
    code: HexBytes(MAX_INITCODE_BYTES, 'init code: the contract bytecode with its constructor arguments appended'),
    value: Units('OMC base units sent to the new contract'),
    gasLimit: GasLimit,
    ...Fees,
  },
  { additionalProperties: false },
);
export const EvmCallPayload = Type.Object(
  {
    to: Type.String({
      pattern: `(${addressPattern})|(^0x[0-9a-fA-F]{40}$)`,
      description: 'the account called: svc1… or 0x…',
    }),
    data: HexBytes(MAX_CALLDATA_BYTES, 'calldata'),
    value: Units('OMC base units sent with the call'),
    gasLimit: GasLimit,
    ...Fees,
  },
  { additionalProperties: false },
);
export const EthereumEnvelopePayload = Type.Object(
  {
    type: Type.Integer({ minimum: 0, maximum: 2 }),
    to: Type.Union([Type.String({ pattern: '^0x[0-9a-f]{40}$' }), Type.Null()]),
    value: Units('wei = OMC base units'),
    gasLimit: Units('gas limit'),
    maxFeePerGas: Units('fee cap (a legacy transaction: its gas price)'),
    maxPriorityFeePerGas: Units('priority fee cap (a legacy transaction: its gas price)'),
    rlp: Bytes,
  },
  { additionalProperties: false },
);

/** The most OMC a transaction may take: its value and its whole gas limit at its fee cap. */
const worstCase = (value: string, gasLimit: string | number, feeCap: bigint) => [
  { asset: 'OMC' as const, amount: BigInt(value) + BigInt(gasLimit) * feeCap },
];

/** A native payload's fees: the base fee and no tip unless it names them (what the runner charges). */
const nativeFees = (payload: { maxFeePerGas?: string; maxPriorityFeePerGas?: string }, baseFee: bigint) => ({
  maxFeePerGas:
    payload.maxFeePerGas === undefined || payload.maxFeePerGas === '0' ? baseFee : BigInt(payload.maxFeePerGas),
  maxPriorityFeePerGas: payload.maxPriorityFeePerGas === undefined ? 0n : BigInt(payload.maxPriorityFeePerGas),
});

/** What a native kind (`evm.create`, `evm.call`) may debit, its gas limit and its fees. */
const nativeCosts = {
  debits: (payload: { value: string; gasLimit: number; maxFeePerGas?: string }, service: EvmPlugin) =>
    worstCase(
      payload.value,
      payload.gasLimit,
      payload.maxFeePerGas === undefined ? service.rules.params.baseFee : BigInt(payload.maxFeePerGas),
    ),
  gasLimit: (payload: { gasLimit: number }) => payload.gasLimit,
  fees: (payload: { maxFeePerGas?: string; maxPriorityFeePerGas?: string }, service: EvmPlugin) =>
    nativeFees(payload, service.rules.params.baseFee),
};

/**
 * The EVM's transaction kinds. All run through the same runner, with the same fees and one nonce
 * per account: `evm.ethereum` is what an Ethereum envelope decodes to (secp256k1-signed, RLP), the
 * other two are native (Ed25519-signed, CBOR) for the SDK and the CLI.
 */
export function evmTxKinds(kind: TxKindFactory<EvmPlugin>): TxKind[] {
  return [
    kind({
      kind: ETHEREUM_KIND,
      summary:
        'an Ethereum transaction (legacy with EIP-155, EIP-2930 or EIP-1559), as eth_sendRawTransaction takes it: runs in the EVM',
      payload: EthereumEnvelopePayload,
      managesNonce: true,
      // Only the Ethereum envelope makes this kind: its signer's key is secp256k1 (64 bytes), not Ed25519.
      authorize: (tx) =>
        tx.publicKey.length === 2 + 128
          ? undefined
          : 'an evm.ethereum transaction comes only as an Ethereum envelope (eth_sendRawTransaction)',
      debits: (payload) => worstCase(payload.value, payload.gasLimit, BigInt(payload.maxFeePerGas)),
      gasLimit: (payload) => BigInt(payload.gasLimit),
      fees: (payload) => ({
        maxFeePerGas: BigInt(payload.maxFeePerGas),
        maxPriorityFeePerGas: BigInt(payload.maxPriorityFeePerGas),
      }),
      // The payload keeps the envelope's `0x…` recipient; the svc_ side names accounts `svc1…`, as this transaction's receipt does.
      view: (payload) => ({
        ...payload,
        to: typeof payload.to === 'string' && isValidEthAddress(payload.to) ? accountAddress(payload.to) : payload.to,
      }),
      admit: (payload, service) =>
        admitting(() => service.rules.admit(service.rules.ethereumTx(payload as EthereumPayload))),
      execute: (ctx, service) => service.rules.execute(ctx, service.rules.transactionOf(ctx.tx)!),
    }),
    kind({
      kind: 'evm.create',
      summary:
        'deploys a contract: runs its init code and keeps the code it returns at the address of the sender and nonce',
      payload: EvmCreatePayload,
      managesNonce: true,
      ...nativeCosts,
      admit: (payload, service) =>
        admitting(() =>
          service.rules.admit(service.rules.nativeTx(payload, 'svc10000000000000000000000000000000000000000', 0)),
        ),
      execute: (ctx, service) => service.rules.execute(ctx, service.rules.transactionOf(ctx.tx)!),
    }),
    kind({
      kind: 'evm.call',
      summary: 'calls an account in the EVM with calldata and OMC',
      payload: EvmCallPayload,
      managesNonce: true,
      authorize: (_tx, payload) =>
        payload.to.startsWith('0x') && !isValidEthAddress(payload.to)
          ? 'payload of evm.call: "to" has a wrong EIP-55 checksum'
          : undefined,
      ...nativeCosts,
      admit: (payload, service) =>
        admitting(() =>
          service.rules.admit(
            service.rules.nativeTx(nativeFields(payload), 'svc10000000000000000000000000000000000000000', 0),
          ),
        ),
      execute: (ctx, service) => service.rules.execute(ctx, service.rules.transactionOf(ctx.tx)!),
    }),
  ];
}
