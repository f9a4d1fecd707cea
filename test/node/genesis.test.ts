import { describe, expect, it } from 'vitest';
import { devnetBaseGenesis, genesisHash, withPluginGenesis } from '../../chain/genesis.js';
import { definePlugin, type AnyPlugin } from '../../kernel/plugin.js';
import '../../chain/contract.js';
import { catalog } from '../../node/catalog.js';
import { DEVNET_GENESIS_PLUGINS, devnetGenesis } from '../../node/genesis.js';
import { devnetGenesisSpec } from '../../node/devnet-genesis-spec.js';
import { rpc, startTestNode } from '../helpers/test-node.js';

/**
 * The devnet's block 0, byte for byte: changing it makes every existing devnet data dir refuse to
 * open. It changed when headers began to carry their parent's commit certificate, when
 * the state root's tree became 16-ary, when the EVM came (the test-mnemonic accounts and the
 * EVM's parameters: chain id, block gas limit, base fee), and with each chain-rules version (block 0
 * holds it; a devnet data dir of an earlier version opens at that version, with that version's block 0).
 */
const DEVNET_GENESIS_HASH = '0xae6741a5f99d2e8325e8fb7bd537f538f2edc7c258f181a2f9afc1770ea2bc25';

const entry = (key: string, value: number) => [key, new Uint8Array([value])] as const;

describe('genesis', () => {
  it('the devnet genesis hash is pinned, and a running devnet node has exactly it', async () => {
    expect(genesisHash(devnetGenesis())).toBe(DEVNET_GENESIS_HASH);
    const node = await startTestNode({ storage: 'memory' });
    try {
      expect((await rpc<{ genesisHash: string }>(node.url, 'svc_chainInfo')).body.result!.genesisHash).toBe(
        DEVNET_GENESIS_HASH,
      );
    } finally {
      await node.stop();
    }
  });

  it('its plugin entries come from the chain-rule plugins every node loads', async () => {
    const consensus = await Promise.all((catalog.consensus ?? []).map((name) => catalog.plugins[name]!()));
    expect(DEVNET_GENESIS_PLUGINS.map((p) => p.name)).toEqual(consensus.filter((p) => p.genesis).map((p) => p.name));
  });

  it('a plugin writes only under its own name or params/, a key twice is refused, and a shared parameter must agree', () => {
    const plugin = (name: string, entries: (readonly [string, Uint8Array])[]): AnyPlugin =>
      definePlugin({ name, version: '1.0.0', description: name, genesis: () => entries }) as AnyPlugin;
    const base = devnetBaseGenesis();
    expect([
      ...withPluginGenesis(base, [
        plugin('a', [entry('a/x', 1), entry('params/p', 2)]),
        plugin('b', [entry('params/p', 2)]),
      ]).entries.keys(),
    ]).toEqual(['a/x', 'params/p']);
    expect(() => withPluginGenesis(base, [plugin('a', [entry('b/x', 1)])])).toThrow(
      'plugin "a": genesis key "b/x" must start with "a/" or "params/"',
    );
    expect(() =>
      withPluginGenesis(base, [plugin('a', [entry('params/p', 1)]), plugin('b', [entry('params/p', 2)])]),
    ).toThrow('genesis key "params/p" of plugin "b" is already set by plugin "a"');
  });

  it('a genesis registers providers only with their bond bonded in the accounts, at least the minimum, with valid details; and a challenge window in range', () => {
    const spec = devnetGenesisSpec();
    const compute = (spec.params.providers as { compute: Record<string, unknown>[] }).compute[0]!;
    const withProviders = (providers: unknown, params: Record<string, unknown> = {}) =>
      withPluginGenesis({ ...spec, params: { ...spec.params, providers, ...params } }, DEVNET_GENESIS_PLUGINS);
    expect(() => withProviders({ compute: [{ ...compute, bond: '999' }] })).toThrow(
      /providers.compute"\[0\].bond is 999 OGT: a compute bond is at least 1000 OGT/,
    );
    expect(() => withProviders({ compute: [{ ...compute, bond: '2000' }] })).toThrow(
      /must have "bonded": \{ "compute": "2000" \}.*it has 1000 OGT bonded for compute/,
    );
    expect(() =>
      withProviders({ compute: [{ ...compute, details: { capabilities: ['gpu'], maxConcurrentJobs: 1 } }] }),
    ).toThrow(/providers.compute"\[0\].details\/capabilities/);
    expect(() => withProviders({ compute: [compute, compute] })).toThrow(/is listed twice/);
    expect(() => withProviders({ compute: 'all' })).toThrow(/must be an array/);
    expect(() => withProviders(spec.params.providers, { jobChallengeWindowMs: -1 })).toThrow(
      /"jobChallengeWindowMs" must be a whole number of ms from 0 to 600000/,
    );
  });
});
