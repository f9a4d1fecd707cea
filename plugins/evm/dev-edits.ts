import Type, { type Static } from 'typebox';
import { fromHex } from '../../sdk/bytes.js';
import type { Address } from '../../sdk/address.js';
import { TxFailure, type TxContext, type TxKind, type TxKindFactory } from '../../chain/contract.js';
import { WorldStateManager } from './state-manager.js';
import { evmAddress } from './runner.js';
import type { EvmPlugin } from './plugin-service.js';

const Hex32 = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });
/** The most code one edit sets: a contract's limit twice over (Anvil sets any; a block must still travel). */
const MAX_DEV_CODE_BYTES = 49_152;

export const DevSetPayload = Type.Object(
  {
    address: Type.String({ pattern: '^0x[0-9a-f]{40}$', description: 'the account edited (lowercase 0x)' }),
    balance: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,77})$', description: 'its OMC, in base units (wei)' })),
    nonce: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    code: Type.Optional(Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', maxLength: 2 + 2 * MAX_DEV_CODE_BYTES, description: 'its code (0x: none)' })),
    storage: Type.Optional(Type.Array(Type.Object({ slot: Hex32, value: Hex32 }, { additionalProperties: false }), { minItems: 1, maxItems: 1_000 })),
  },
  { additionalProperties: false },
);
export type DevSet = Static<typeof DevSetPayload>;

export const DEV_SET_KIND = 'evm.devSet';

/**
 * Dev mode's state edits (`anvil_setBalance`, `setCode`, `setNonce`, `setStorageAt`) as a transaction
 * kind, so they are in blocks and a follower that replays the chain reaches the same state. Valid only
 * on the devnet and only signed by its validator; admitted only by a node in dev mode (a plain devnet
 * node refuses them, though its validator key is public). Applied through the EVM's own state manager.
 */
export function devEditKind(kind: TxKindFactory<EvmPlugin>): TxKind {
  return kind({
    kind: DEV_SET_KIND,
    summary: "dev mode: sets an account's balance, nonce, code or storage slots (signed by the devnet's validator)",
    payload: DevSetPayload,
    authorize: (tx, _payload, service) => {
      const genesis = service.rules.chain.genesis;
      return genesis.network === 'devnet' && tx.from === genesis.validator ? undefined : `${DEV_SET_KIND} is a dev-mode state edit: only the devnet's validator signs one`;
    },
    admit: (_payload, service) => {
      if (!service.dev) throw new TxFailure('dev_mode_off', `${DEV_SET_KIND}: this node is not in dev mode (svc-node start --dev)`);
    },
    async execute(ctx: TxContext<DevSet>) {
      const { payload } = ctx;
      const state = new WorldStateManager();
      state.bind((key) => ctx.readState(key), { creator: ctx.tx.from, height: ctx.height });
      const address = evmAddress(`svc1${payload.address.slice(2)}` as Address);
      if (payload.balance !== undefined || payload.nonce !== undefined) {
        await state.modifyAccountFields(address, { ...(payload.balance !== undefined ? { balance: BigInt(payload.balance) } : {}), ...(payload.nonce !== undefined ? { nonce: BigInt(payload.nonce) } : {}) });
      }
      if (payload.code !== undefined) await state.putCode(address, fromHex(payload.code));
      for (const { slot, value } of payload.storage ?? []) await state.putStorage(address, fromHex(slot), fromHex(value));
      state.finish({ setAccount: (a, account) => ctx.setAccount(a, account), writeState: (key, value) => ctx.writeState(key, value) });
    },
  });
}
