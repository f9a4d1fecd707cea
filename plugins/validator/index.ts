import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { devnetKey, keyPairFromSecret, type KeyPair } from '../../sdk/keys.js';
import { definePlugin } from '../../kernel/plugin.js';
import { withNativeSigner } from '../../keys/native-signer.js';
import { BlockProducer } from './producer.js';

function loadKey(keyFile: string | undefined, network: string): KeyPair {
  if (!keyFile) {
    if (network !== 'devnet') throw new Error(`validator: network ${network} needs "validator.keyFile" (a file holding the 32-byte secret key as hex)`);
    return withNativeSigner(devnetKey('validator', 0));
  }
  try {
    return withNativeSigner(keyPairFromSecret(fromHex(readFileSync(keyFile, 'utf8').trim())));
  } catch (error) {
    throw new Error(`validator.keyFile ${keyFile}: ${(error as Error).message}`);
  }
}

export default definePlugin({
  name: 'validator',
  version: '1.0.0',
  description: 'produces a signed block every block time, also when empty',
  requires: ['block-production'],
  // The node's block producer: the chain and the network see it by this capability.
  provides: ['block-producer'],
  config: Type.Object(
    {
      blockTime: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 3000, description: 'block interval, ms (--block-time)' }),
      keyFile: Type.Optional(Type.String({ minLength: 1, description: 'hex secret key of the genesis validator; devnet uses its built-in dev key' })),
    },
    { additionalProperties: false },
  ),
  init(ctx) {
    const chain = ctx.use('block-production');
    const key = loadKey(ctx.config.keyFile, ctx.node.network);
    if (toHex(key.publicKey) !== chain.genesis.validatorKey) {
      throw new Error(`validator: this key (${key.address}) is not the genesis validator (${chain.genesis.validator}) of ${chain.genesis.chainId}`);
    }
    ctx.log.info({ proposer: key.address, blockTime: ctx.config.blockTime }, 'validator key loaded');
    return new BlockProducer({ chain, key, blockTime: ctx.config.blockTime, log: ctx.log });
  },
  start: (producer) => producer.start(),
  // A validator whose last block is older than 5 block times is not producing: not healthy.
  notReady: (producer) => (producer.stalled ? 'stalled' : undefined),
  health: (producer) => ({ blockTime: producer.blockTime, produced: producer.produced }),
  stop: (producer) => producer.stop(),
});
