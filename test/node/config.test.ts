import { describe, expect, it } from 'vitest';
import { flagsToConfig } from '../../node/flags.js';
import { mergeConfig } from '../../kernel/config/load.js';
import { resolveConfig } from '../../node/config.js';

describe('config', () => {
  it('applies defaults for everything left out', () => {
    const { node } = resolveConfig({});
    expect(node).toMatchObject({
      network: 'devnet',
      role: 'full',
      dataDir: './data',
      storage: 'rocksdb',
      rpc: { bind: '127.0.0.1:8545', maxBody: 1048576, maxBatch: 100 },
      p2p: { host: '0.0.0.0', port: 30333, bootstrapPeers: [] },
      chain: { receiptArchive: false, historyBlocks: 10000 },
      guardrails: false,
    });
  });

  it('names the bad key, and the flag when a flag set it', () => {
    expect(() => resolveConfig({ rpc: { maxBatch: 0 } })).toThrow('config key "rpc.maxBatch": must be >= 1');
    expect(() => resolveConfig({ role: 'miner' })).toThrow(
      'config key "role": must be one of "validator", "compute", "full"',
    );
    expect(() => resolveConfig({ rpc: { bnd: 'x' } })).toThrow('unknown config key "rpc.bnd"');
    expect(() => resolveConfig({ p2p: { bootstrapPeers: ['nope'] } })).toThrow(/config key "p2p.bootstrapPeers.0"/);
    expect(() => resolveConfig({ rpc: { maxBatch: 0 } }, new Map([['rpc.maxBatch', '--rpc-max-batch']]))).toThrow(
      '--rpc-max-batch: must be >= 1',
    );
  });

  it('lets flags win over the file, merging objects', () => {
    const file = { role: 'full', rpc: { bind: '127.0.0.1:1', maxBatch: 5 } };
    const { config } = flagsToConfig({ role: 'validator', bind: '127.0.0.1:0' });
    const { node } = resolveConfig(mergeConfig(file, config));
    expect(node.role).toBe('validator');
    expect(node.rpc).toMatchObject({ bind: '127.0.0.1:0', maxBatch: 5 });
  });

  it('reads cac values the way users mean them', () => {
    const { config } = flagsToConfig({
      receiptArchive: 'true',
      p2pPort: 0,
      blockTime: '250',
      bootstrapPeers: [
        '/ip4/127.0.0.1/tcp/1/p2p/12D3KooWNTF2FeepLMsAdNxVonZGkHq5F8kWSW5EncP8LfNKskWW,/ip4/127.0.0.1/tcp/2/p2p/12D3KooWNTF2FeepLMsAdNxVonZGkHq5F8kWSW5EncP8LfNKskWW',
        '/ip4/127.0.0.2/tcp/3/p2p/12D3KooWNTF2FeepLMsAdNxVonZGkHq5F8kWSW5EncP8LfNKskWW',
      ],
    });
    expect(config).toMatchObject({ chain: { receiptArchive: true }, p2p: { port: 0 }, validator: { blockTime: 250 } });
    expect((config.p2p as { bootstrapPeers: string[] }).bootstrapPeers).toHaveLength(3);
  });
});
