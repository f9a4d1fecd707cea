import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGenesisFile, withPluginGenesis } from '../../chain/genesis.js';
import { DEVNET_GENESIS_PLUGINS } from '../../node/genesis.js';
import { evmChainIdOf, initTestnet, type Testnet } from '../../node/testnet-init.js';
import { DEVNET_EVM_CHAIN_ID } from '../../plugins/evm/params.js';
import type { P2pService } from '../../p2p/service.js';
import { SvcClient, UNIT } from '../../sdk/index.js';
import { run, SVC_NODE } from '../helpers/cli.js';
import { startTestNode, syncStatus, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';

// One network from `svc-node init`: three validators (the genesis validator and two staked in block 0) and a follower.
let testnet: Testnet;
const nodes: TestNode[] = [];

/** Starts a node from its generated config, on free ports, dialling the nodes already up. */
async function startFrom(config: string): Promise<TestNode> {
  const raw = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown> & { p2p: Record<string, unknown> };
  const bootstrapPeers = nodes.map((n) => n.node.service<P2pService>('p2p').listenAddresses[0]!);
  const node = await startTestNode({
    ...raw,
    rpc: { bind: '127.0.0.1:0', validateResults: true },
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers },
  });
  nodes.push(node);
  return node;
}

beforeAll(async () => {
  // The ports written into the configs are never listened on here: each node starts on port 0 (startFrom).
  testnet = await initTestnet({
    out: join(tempDir(), 'net'),
    validators: 3,
    followers: 1,
    hosts: ['127.0.0.1'],
    network: 'devnet',
    stakeOgt: 20n * UNIT,
    blockTimeMs: 200,
    rpcPort: 18545,
    p2pPort: 31333,
  });
  for (const node of testnet.nodes) await startFrom(node.config);
}, 120_000);
afterAll(async () => {
  for (const node of nodes.reverse()) await node.stop();
});

describe('svc-node init --validators', () => {
  it('writes a network whose validators are all in the set from block 1 and commit blocks together; the follower syncs', async () => {
    const client = new SvcClient(nodes[0]!.url);
    const set = await client.validators();
    expect(
      set.validators
        .map((v) => ({ operator: v.operator, power: v.power, status: v.status, genesis: v.genesis }))
        .sort((a, b) => a.operator.localeCompare(b.operator)),
    ).toEqual(
      testnet.nodes
        .filter((n) => n.role === 'validator')
        .map((n, i) => ({ operator: n.operator, power: '20', status: 'active', genesis: i === 0 }))
        .sort((a, b) => a.operator!.localeCompare(b.operator!)),
    );
    // Every validator signs: a block's certificate carries all three.
    const head = await waitFor(
      () => client.blockNumber(),
      (h) => h >= 3,
      30_000,
      'three blocks',
    );
    const block = await client.getBlockByNumber(head);
    expect(block.lastCommit!.signatures.length).toBe(3);
    expect(block.chainId).toBe(testnet.chainId);
    expect((await client.getBlockByNumber(0)).hash).toBe(testnet.genesisHash);
    // A staked validator's stake is bonded in its account, not free OGT.
    const staked = testnet.nodes[1]!.operator!;
    expect(await client.rpcCall('svc_stakingStatus', [staked])).toMatchObject({ status: 'active', stake: '20' });
    expect(await client.getBalance(staked)).toMatchObject({ ogt: 100n * UNIT, bonded: { stake: 20n * UNIT } });
    const follower = nodes[3]!;
    await waitFor(
      () => syncStatus(follower).synced && follower.node.rpcUrl !== '',
      Boolean,
      30_000,
      'the follower to sync',
    );
    expect((await new SvcClient(follower.url).getBlockByNumber(head)).hash).toBe(block.hash);
  });

  it('gives each node a config that binds its host, dials every other node and names the genesis; validator keys are private', () => {
    const [v0, v1] = testnet.nodes;
    const config = JSON.parse(readFileSync(v1!.config, 'utf8')) as {
      rpc: { bind: string };
      p2p: { host: string; port: number; bootstrapPeers: string[] };
      genesis: string;
      validator: { keyFile: string };
    };
    expect(config).toMatchObject({
      rpc: { bind: '127.0.0.1:18546' },
      p2p: { host: '127.0.0.1', port: 31334 },
      genesis: testnet.genesis,
    });
    expect(config.p2p.bootstrapPeers).toEqual(testnet.nodes.filter((n) => n !== v1).map((n) => n.p2p));
    expect(v0!.p2p).toBe(`/ip4/127.0.0.1/tcp/31333/p2p/${v0!.peerId}`);
    expect(readFileSync(config.validator.keyFile, 'utf8')).toMatch(/^0x[0-9a-f]{64}\n$/);
    expect(statSync(config.validator.keyFile).mode & 0o777).toBe(0o600);
  });

  it('refuses a genesis whose staked validator has not bonded its stake, or shares a key, or stakes out of range, naming it', () => {
    const file = join(tempDir(), 'genesis.json');
    const good = JSON.parse(readFileSync(testnet.genesis, 'utf8')) as {
      accounts: { bonded?: Record<string, string> }[];
      validators: { consensusKey: string; stake: string }[];
      validatorKey: string;
    };
    const check = (change: (g: typeof good) => void): void => {
      const copy = structuredClone(good);
      change(copy);
      writeFileSync(file, JSON.stringify(copy));
      withPluginGenesis(readGenesisFile(file, 'devnet'), DEVNET_GENESIS_PLUGINS);
    };
    expect(() => check(() => undefined)).not.toThrow();
    expect(() => check((g) => delete g.accounts[1]!.bonded)).toThrow(
      /genesis "validators"\[0\]: its account must have "bonded": \{ "stake": "20" \}.*it has 0 OGT bonded/,
    );
    expect(() => check((g) => (g.validators[1]!.consensusKey = g.validatorKey))).toThrow(
      /genesis "validators"\[1\]: the consensus key 0x[0-9a-f]{64} is another validator's/,
    );
    expect(() => check((g) => (g.validators[0]!.stake = '30'))).toThrow(
      /genesis "validators"\[0\]\.stake is 30 OGT: a validator's stake is 15 to 28 OGT/,
    );
  });

  it("gives the network an EVM chain id of its own, derived from its chain id (never the devnet's), that its nodes answer", async () => {
    expect(testnet.evmChainId).toBe(evmChainIdOf(testnet.chainId));
    expect(testnet.evmChainId).not.toBe(DEVNET_EVM_CHAIN_ID);
    expect(evmChainIdOf('svc-devnet-000001')).not.toBe(evmChainIdOf('svc-devnet-000002'));
    expect(JSON.parse(readFileSync(testnet.genesis, 'utf8'))).toMatchObject({ evmChainId: testnet.evmChainId });
    expect(await new SvcClient(nodes[0]!.url).rpcCall('eth_chainId', [])).toBe(`0x${testnet.evmChainId.toString(16)}`);
    // Given on the command line, it is that one; a bad one is refused.
    const out = join(tempDir(), 'evm-net');
    const made = await run(SVC_NODE, ['init', '--validators', '1', '--out', out, '--evm-chain-id', '12345']);
    expect(made.stdout).toMatch(/^EVM chain {2}12345 \(eth_chainId 0x3039\)$/m);
    expect(JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8'))).toMatchObject({ evmChainId: 12345 });
    const bad = await run(SVC_NODE, [
      'init',
      '--validators',
      '1',
      '--out',
      join(tempDir(), 'y'),
      '--evm-chain-id',
      '0x10',
    ]);
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^svc-node: --evm-chain-id/),
    });
  });

  it('from the CLI: prints each node and how to start it, and refuses a dir that is not empty and a bad host', async () => {
    const out = join(tempDir(), 'cli-net');
    const made = await run(SVC_NODE, [
      'init',
      '--validators',
      '2',
      '--out',
      out,
      '--hosts',
      '10.1.0.2,10.1.0.3',
      '--chain-id',
      'svc-hosts-1',
    ]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^chain id {3}svc-hosts-1$/m);
    expect(made.stdout).toContain(`validator1 validator http://10.1.0.3:8545`);
    expect(made.stdout).toContain(`svc-node start --config ${join(out, 'validator0.json')}`);
    const again = await run(SVC_NODE, ['init', '--validators', '2', '--out', out]);
    expect({ code: again.code, stderr: again.stderr.trim() }).toEqual({
      code: 2,
      stderr: `svc-node: --out ${out}: not empty (init never overwrites keys)`,
    });
    const badHost = await run(SVC_NODE, [
      'init',
      '--validators',
      '2',
      '--out',
      join(tempDir(), 'x'),
      '--hosts',
      'host-a',
    ]);
    expect({ code: badHost.code, stderr: badHost.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'svc-node: --hosts: "host-a" is not an IPv4 address',
    });
  });
});
