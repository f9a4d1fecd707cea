import Type, { type Static } from 'typebox';
import { fromHex } from '../../sdk/bytes.js';
import type { Address } from '../../sdk/address.js';
import { TxFailure, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';
import { WorldStateManager } from './state-manager.js';
import { evmAddress } from './runner.js';
import type { EvmPlugin } from './plugin-service.js';
import { Fees, GasLimit, HexBytes, MAX_CALLDATA_BYTES, Units } from './payload-schemas.js';
import { stageParamChange } from './params.js';
import { addressOfHex } from '../../sdk/address.js';
import { admitting } from './admission.js';
import { accountKey, decodeAccount } from '../../chain/state/accounts.js';
import type { TypedTransaction } from '@ethereumjs/tx';
import { devSignerRefusal, refuseUnlessDevMode } from '../../chain/dev-kinds.js';

/** The most a transaction pays per gas: its gas price, or its fee cap. */
const maxPricePerGas = (tx: TypedTransaction): bigint => ('maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice);

const Hex32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });
const LowerAddress = (description: string) => Type.String({ pattern: '^0x[0-9a-f]{40}$', description });
/** The most code one edit sets: a contract's limit twice over (Anvil sets any; a block must still travel). */
const MAX_DEV_CODE_BYTES = 49_152;

/** A nonce above 2^53 − 1 (a number would not hold it exactly), as a decimal string. */
const BigNonce = Type.String({ pattern: '^[1-9][0-9]{15,19}$' });
/** Ethereum's largest nonce (EIP-2681). */
const MAX_NONCE = 2n ** 64n - 1n;
/** The rules version from which an edit's nonce may be above 2^53 − 1. */
export const BIG_NONCES_SINCE = 7;

/** A nonce as an edit carries it: a number where exact, else a decimal string. */
export const nonceField = (nonce: bigint): number | string =>
  nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(nonce) : nonce.toString();

export const DevSetPayload = Type.Object(
  {
    address: LowerAddress('the account edited (lowercase 0x)'),
    balance: Type.Optional(Units('its OMC, in base units (wei)')),
    ogt: Type.Optional(Units('its OGT, in base units')),
    nonce: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), BigNonce], {
        description: 'its nonce: a number, or above 2^53 − 1 a decimal string (from rules version 7; at most 2^64 − 1)',
      }),
    ),
    code: Type.Optional(HexBytes(MAX_DEV_CODE_BYTES, 'its code (0x: none)')),
    storage: Type.Optional(
      Type.Array(Type.Object({ slot: Hex32, value: Hex32 }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 1_000,
      }),
    ),
  },
  { additionalProperties: false },
);
export type DevSet = Static<typeof DevSetPayload>;

export const DEV_SET_KIND = 'evm.devSet';
export const DEV_IMPERSONATED_KIND = 'evm.devImpersonated';

export const DevImpersonatedPayload = Type.Object(
  {
    from: LowerAddress('the account it runs as (lowercase 0x), unsigned'),
    to: Type.Union([LowerAddress('the account called'), Type.Null()], {
      description: 'the account called, or null to create a contract',
    }),
    data: HexBytes(MAX_CALLDATA_BYTES, 'calldata, or init code when `to` is null'),
    value: Units('OMC base units sent with it'),
    gasLimit: GasLimit,
    nonce: Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), BigNonce], {
      description:
        "the impersonated account's nonce it uses: a number, or above 2^53 − 1 a decimal string (from rules version 7)",
    }),
    ...Fees,
    // From chain rules version 7: the Ethereum type the send was (as Anvil picks it from its fields),
    // a legacy or EIP-2930 gas price, and an access list, each honoured as a signed transaction's.
    type: Type.Optional(
      Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)], {
        description: 'its Ethereum type (0 legacy, 1 EIP-2930, 2 EIP-1559); absent before rules version 7: EIP-1559',
      }),
    ),
    gasPrice: Type.Optional(Units('type 0 and 1: what it pays per gas, in OMC base units')),
    accessList: Type.Optional(
      Type.Array(
        Type.Object(
          { address: LowerAddress('an account'), storageKeys: Type.Array(Hex32, { maxItems: 1_000 }) },
          { additionalProperties: false },
        ),
        { maxItems: 1_000, description: 'type 1 and 2: accounts and slots warm from the start (EIP-2930)' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type DevImpersonated = Static<typeof DevImpersonatedPayload>;

/** The rules version from which an impersonated send carries its type, gas price and access list. */
export const IMPERSONATED_TYPES_SINCE = 7;

/** Who may sign a dev-mode kind: the devnet's validator, on the devnet. */
function devSigner(kindName: string) {
  return (tx: { from: string }, _payload: unknown, service: EvmPlugin): string | undefined =>
    devSignerRefusal(kindName, service.rules.chain.genesis, tx.from);
}

function devOnly(kindName: string) {
  return (_payload: unknown, service: EvmPlugin): void => refuseUnlessDevMode(kindName, service.dev);
}

/** The account an impersonated transaction runs as (svc1 form). */
export const impersonatedSender = (payload: DevImpersonated): Address => addressOfHex(payload.from);

/**
 * Dev mode's impersonation (`anvil_impersonateAccount`, then an unsigned `eth_sendTransaction`): the
 * devnet validator signs a transaction that runs in the EVM as `from`, with `from`'s nonce, paying
 * from `from`'s balance, as if `from` had signed it. Ethereum's views show it as `from`'s (its hash
 * is the transaction's); the chain moves the validator's nonce for the envelope.
 */
export function devImpersonatedKind(kind: TxKindFactory<EvmPlugin>): TxKind {
  return kind({
    kind: DEV_IMPERSONATED_KIND,
    summary:
      'dev mode: an EVM transaction run as an impersonated account, unsigned by it (signed by the devnet validator)',
    payload: DevImpersonatedPayload,
    authorize: devSigner(DEV_IMPERSONATED_KIND),
    // Checked as a signed one is (fees, gas): one that cannot run is refused at submission.
    admit: (payload, service) => {
      devOnly(DEV_IMPERSONATED_KIND)(payload, service);
      const chain = service.rules.chain;
      checkNonce(payload, chain.rulesVersionAt(chain.head.height + 1));
      const tx = service.rules.impersonatedTx(payload);
      admitting(() => service.rules.admit(tx));
      // The impersonated account pays, not the validator that signs the envelope: its funds are
      // checked here, as a signed transaction's are (Anvil refuses such a send).
      const have = decodeAccount(service.rules.chain.state.get(accountKey(impersonatedSender(payload)))).omc;
      const want = tx.gasLimit * maxPricePerGas(tx) + tx.value;
      if (have < want)
        throw new TxFailure(
          'insufficient_funds',
          `insufficient funds for gas * price + value: address ${payload.from} have ${have} want ${want}`,
        );
    },
    gasLimit: (payload) => payload.gasLimit,
    execute: (ctx, service) => {
      const payload = ctx.payload as DevImpersonated;
      checkNonce(payload, ctx.rulesVersion);
      if (payload.type !== undefined && ctx.rulesVersion < IMPERSONATED_TYPES_SINCE)
        throw new TxFailure(
          'invalid_transaction',
          `an impersonated send with a type exists from chain rules version ${IMPERSONATED_TYPES_SINCE}; this block runs version ${ctx.rulesVersion}`,
        );
      return service.rules.execute(ctx, service.rules.transactionOf(ctx.tx)!);
    },
  });
}

/** An edit's nonce above 2^53 − 1: from rules version 7, and at most 2^64 − 1. */
function checkNonce(payload: { readonly nonce?: number | string }, rulesVersion: number): void {
  if (typeof payload.nonce !== 'string') return;
  if (rulesVersion < BIG_NONCES_SINCE)
    throw new TxFailure(
      'invalid_transaction',
      `a nonce above 2^53 − 1 in an edit exists from chain rules version ${BIG_NONCES_SINCE}; this block runs version ${rulesVersion}`,
    );
  if (BigInt(payload.nonce) > MAX_NONCE)
    throw new TxFailure('invalid_transaction', `nonce ${payload.nonce} is above 2^64 − 1 (EIP-2681)`);
}

/**
 * Dev mode's state edits (`anvil_setBalance`, `setCode`, `setNonce`, `setStorageAt`) as a transaction
 * kind, so they are in blocks and a follower that replays the chain reaches the same state. Valid only
 * on the devnet and only signed by its validator; admitted only by a node in dev mode (a plain devnet
 * node refuses them, though its validator key is public). Applied through the EVM's own state manager.
 */
export function devEditKind(kind: TxKindFactory<EvmPlugin>): TxKind {
  return kind({
    kind: DEV_SET_KIND,
    summary: "dev mode: sets an account's OMC, OGT, nonce, code or storage slots (signed by the devnet's validator)",
    payload: DevSetPayload,
    authorize: devSigner(DEV_SET_KIND),
    admit: (payload, service) => {
      devOnly(DEV_SET_KIND)(payload, service);
      const chain = service.rules.chain;
      checkNonce(payload, chain.rulesVersionAt(chain.head.height + 1));
    },
    async execute(ctx: TxContext<DevSet>) {
      const { payload } = ctx;
      checkNonce(payload, ctx.rulesVersion);
      const state = new WorldStateManager();
      state.bind((key) => ctx.readState(key), { creator: ctx.tx.from, height: ctx.height });
      const address = evmAddress(addressOfHex(payload.address));
      if (payload.balance !== undefined || payload.nonce !== undefined) {
        await state.modifyAccountFields(address, {
          ...(payload.balance !== undefined ? { balance: BigInt(payload.balance) } : {}),
          ...(payload.nonce !== undefined ? { nonce: BigInt(payload.nonce) } : {}),
        });
      }
      if (payload.code !== undefined) await state.putCode(address, fromHex(payload.code));
      for (const { slot, value } of payload.storage ?? [])
        await state.putStorage(address, fromHex(slot), fromHex(value));
      state.finish({
        setAccount: (a, account) => ctx.setAccount(a, account),
        writeState: (key, value) => ctx.writeState(key, value),
      });
      if (payload.ogt !== undefined) {
        const svc = addressOfHex(payload.address);
        ctx.setAccount(svc, { ...ctx.account(svc), ogt: BigInt(payload.ogt) });
      }
    },
  });
}

export const DEV_PARAMS_KIND = 'evm.devParams';
/** The rules version from which dev mode may change the EVM's parameters. */
export const DEV_PARAMS_SINCE = 7;

export const DevParamsPayload = Type.Object(
  {
    blockGasLimit: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,19}$', description: 'the block gas limit from the next block, decimal' }),
    ),
    baseFee: Type.Optional(Units('the base fee per gas from the next block, in OMC base units (it stays there)')),
    coinbase: Type.Optional(LowerAddress('who the EVM pays priority fees to from the next block (lowercase 0x)')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type DevParams = Static<typeof DevParamsPayload>;

/**
 * Dev mode's changes of the EVM's consensus parameters (`anvil_setBlockGasLimit`,
 * `anvil_setNextBlockBaseFeePerGas`, `anvil_setCoinbase`) as a transaction kind: held until the end
 * of its block, in force from the next (so every run of a block sees the same), and replayed by a
 * follower as any edit. The devnet validator's alone, admitted in dev mode.
 */
export function devParamsKind(kind: TxKindFactory<EvmPlugin>): TxKind {
  return kind({
    kind: DEV_PARAMS_KIND,
    summary:
      "dev mode: sets the block gas limit, the base fee or the EVM's coinbase from the next block (signed by the devnet's validator)",
    payload: DevParamsPayload,
    sinceRulesVersion: DEV_PARAMS_SINCE,
    authorize: devSigner(DEV_PARAMS_KIND),
    admit: devOnly(DEV_PARAMS_KIND),
    execute(ctx: TxContext<DevParams>) {
      const { blockGasLimit, baseFee, coinbase } = ctx.payload;
      stageParamChange(
        (key) => ctx.readState(key),
        (key, value) => ctx.writeState(key, value),
        {
          ...(blockGasLimit !== undefined ? { blockGasLimit } : {}),
          ...(baseFee !== undefined ? { baseFee } : {}),
          ...(coinbase !== undefined ? { coinbase: addressOfHex(coinbase) } : {}),
        },
      );
    },
  });
}
