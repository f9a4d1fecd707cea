import Type from 'typebox';
import { domainError } from '../../sdk/errors.js';
import { definePlugin, param } from '../plugin.js';
import { BlockStore } from './block-store.js';
import { Chain } from './chain.js';
import type { GenesisSpec } from './genesis.js';
import { BlockSchema, BlockTagSchema, HashSchema } from './schemas.js';

declare module '../plugin.js' {
  interface SvcCapabilities {
    chain: Chain;
  }
}

/** The kernel's own plugin: the chain's storage, its head, and the RPC methods that read blocks. Always loaded. */
export function chainPlugin(genesis: GenesisSpec) {
  return definePlugin({
    name: 'chain',
    version: '1.0.0',
    description: 'the chain: blocks, head, genesis; block-reading RPC methods',
    provides: ['chain'],
    namespaces: [
      { name: 'chain.blocks', description: 'u64 height -> CBOR block' },
      { name: 'chain.block-index', description: '32-byte block hash -> u64 height' },
      { name: 'chain.meta', description: '"head" -> u64 height of the head block' },
    ],
    events: { 'chain:block': 'a block and all its state are committed' },
    async init(ctx) {
      const blocks = new BlockStore(ctx.namespace('chain.blocks'), ctx.namespace('chain.block-index'), ctx.namespace('chain.meta'));
      const chain = new Chain({ batch: () => ctx.batch(), blocks, genesis, events: ctx.events, log: ctx.log });
      await chain.open();
      ctx.log.info({ height: chain.head.height, hash: chain.head.hash }, 'chain open');
      return chain;
    },
    notReady: (chain) => (chain.synced ? undefined : 'syncing'),
    rpc: (method) => [
      method({
        name: 'svc_blockNumber',
        summary: 'Height of the head block.',
        params: [],
        result: Type.Integer({ minimum: 0 }),
        handler: (_params, { service }) => service.head.height,
      }),
      method({
        name: 'svc_getBlockByNumber',
        summary: 'A block by height, or the head with "latest".',
        params: [param('blockNumber', BlockTagSchema)],
        result: BlockSchema,
        errors: ['invalid_params', 'not_found'],
        handler: async ([tag], { service }) => {
          if (tag === 'latest') return service.head;
          const block = tag > service.head.height ? undefined : await service.getBlock(tag);
          if (!block) throw domainError('not_found', `block ${tag} does not exist yet (head is ${service.head.height})`, { blockNumber: tag });
          return block;
        },
      }),
      method({
        name: 'svc_getBlockByHash',
        summary: 'A block by its hash.',
        params: [param('hash', HashSchema)],
        result: BlockSchema,
        errors: ['invalid_params', 'not_found'],
        handler: async ([hash], { service }) => {
          const block = await service.getBlockByHash(hash);
          if (!block) throw domainError('not_found', `no block has hash ${hash}`, { hash });
          return block;
        },
      }),
    ],
  });
}
