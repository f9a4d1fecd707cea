import Type from 'typebox';
import { decimalAmountPattern } from '../../sdk/amount.js';
import { AddressSchema, UnitsSchema } from '../../chain/schemas.js';

const DecimalTokens = Type.String({
  pattern: decimalAmountPattern,
  description: 'a token amount as a decimal string, e.g. "10" or "0.5"',
});

export const FaucetConfigSchema = Type.Object(
  {
    omcGrant: Type.String({ ...DecimalTokens, default: '10', description: 'OMC per grant, in tokens' }),
    ogtGrant: Type.String({ ...DecimalTokens, default: '5', description: 'OGT per grant, in tokens' }),
    cooldownSeconds: Type.Integer({
      minimum: 0,
      maximum: 31_536_000,
      default: 60,
      description: 'per-address cooldown (--faucet-cooldown)',
    }),
    perIpLimit: Type.Integer({
      minimum: 0,
      default: 20,
      description: 'grants per client address per window; 0 disables the throttle',
    }),
    perIpWindowSeconds: Type.Integer({ minimum: 1, default: 3600, description: 'the per-address throttle window' }),
    authority: Type.Optional(
      Type.String({
        pattern: '^[1-9A-HJ-NP-Za-km-z]{46,60}$',
        description:
          "the libp2p peer id of the node that decides the network's grants (svc-node init names its genesis validator on the other nodes); unset or this node's own: this node decides",
      }),
    ),
  },
  { additionalProperties: false },
);

export const MintPayloadSchema = Type.Object(
  {
    to: AddressSchema,
    omc: UnitsSchema,
    ogt: UnitsSchema,
    cooldownSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 31_536_000,
        description:
          "the minting node's cooldown: the mint fails if the chain granted this address less than this long before, by block time",
      }),
    ),
  },
  { additionalProperties: false },
);

export const FaucetResultSchema = Type.Object(
  {
    omcMinted: Type.String({ description: 'OMC granted, human decimal ("10")' }),
    ogtMinted: Type.String({ description: 'OGT granted, human decimal ("5")' }),
    status: Type.Literal('funded'),
    txHash: Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description: 'the mint transaction; the next block includes it',
    }),
  },
  { additionalProperties: false },
);

export const FaucetStatusSchema = Type.Object(
  {
    address: Type.String(),
    eligible: Type.Boolean({
      description: 'whether faucet_request from this caller for this address would be granted now',
    }),
    nextEligibleAt: Type.Union([Type.Integer({ description: 'unix ms' }), Type.Null()]),
    retryAfterSeconds: Type.Integer({ minimum: 0 }),
    waitingFor: Type.Union([Type.Literal('cooldown'), Type.Literal('client_limit'), Type.Null()], {
      description:
        "what it waits for: the address's cooldown, or this caller's grants per window (the longer of the two when both)",
    }),
  },
  { additionalProperties: false },
);
