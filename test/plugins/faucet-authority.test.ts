import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTestnet, type Testnet } from '../../node/testnet-init.js';
import type { P2pService } from '../../p2p/service.js';
import { generateKeyPair, RpcError, SvcClient, UNIT } from '../../sdk/index.js';
import { startTestNode, syncStatus, tempDir, waitFor, type TestNode } from '../helpers/test-node.js';

// A network of `svc-node init`: two validators and a follower; the genesis validator decides the faucet's grants.
let testnet: Testnet;
const nodes: (TestNode | undefined)[] = [];

async function startFrom(index: number): Promise<TestNode> {
  const raw = JSON.parse(readFileSync(testnet.nodes[index]!.config, 'utf8')) as Record<string, unknown>;
  const bootstrapPeers = nodes
    .filter((n, i) => n && i !== index)
    .map((n) => n!.node.service<P2pService>('p2p').listenAddresses[0]!);
  const node = await startTestNode({
    ...raw,
    rpc: { bind: '127.0.0.1:0' },
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers },
  });
  nodes[index] = node;
  return node;
}

const clients = (): SvcClient[] => nodes.filter((n): n is TestNode => n !== undefined).map((n) => new SvcClient(n.url));

/** Every request's outcome: the grant's tx hash, or the error's name. */
async function askAll(address: string, perNode: number): Promise<{ funded: string[]; refused: string[] }> {
  const results = await Promise.allSettled(
    clients().flatMap((client) => Array.from({ length: perNode }, () => client.faucetRequest(address))),
  );
  return {
    funded: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.txHash] : [])),
    refused: results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason instanceof RpcError ? r.reason.message : String(r.reason)] : [],
    ),
  };
}

beforeAll(async () => {
  testnet = await initTestnet({
    out: join(tempDir(), 'net'),
    validators: 2,
    followers: 1,
    hosts: ['127.0.0.1'],
    network: 'devnet',
    stakeOgt: 20n * UNIT,
    blockTimeMs: 200,
    rpcPort: 18545,
    p2pPort: 31333,
  });
  for (let i = 0; i < testnet.nodes.length; i++) await startFrom(i);
  await waitFor(() => syncStatus(nodes[2]!).synced, Boolean, 30_000, 'the follower to sync');
}, 120_000);
afterAll(async () => {
  for (const node of nodes.reverse()) await node?.stop();
});

describe('the faucet of a network', () => {
  it('answers `funded` exactly once to concurrent requests for one address at every node, and that grant is mined', async () => {
    // The nodes but the genesis validator name it as the authority (svc-node init writes it).
    expect(JSON.parse(readFileSync(testnet.nodes[1]!.config, 'utf8'))).toMatchObject({
      faucet: { authority: testnet.nodes[0]!.peerId },
    });
    expect(JSON.parse(readFileSync(testnet.nodes[0]!.config, 'utf8')).faucet).toBeUndefined();
    const address = generateKeyPair().address;
    const { funded, refused } = await askAll(address, 5);
    expect(funded).toHaveLength(1);
    expect(new Set(refused)).toEqual(new Set(['cooldown_active']));
    const client = clients()[2]!;
    expect(await client.waitForTransaction(funded[0]!, { pollMs: 50 })).toMatchObject({
      status: 'success',
      kind: 'faucet.mint',
    });
    expect((await client.getBalance(address)).balanceOMC).toBe('10.000000000000000000');
  });

  it('keeps one answer per address while a follower restarts: asked again at the restarted follower or another node, cooldown_active', async () => {
    const address = generateKeyPair().address;
    const first = await new SvcClient(nodes[2]!.url).faucetRequest(address);
    expect(first.status).toBe('funded');
    await nodes[2]!.stop();
    nodes[2] = undefined;
    await expect(new SvcClient(nodes[1]!.url).faucetRequest(address)).rejects.toMatchObject({
      message: 'cooldown_active',
    });
    const follower = await startFrom(2);
    await waitFor(() => syncStatus(follower).synced, Boolean, 30_000, 'the restarted follower to sync');
    const again = await askAll(address, 3);
    expect(again.funded).toEqual([]);
    expect(new Set(again.refused)).toEqual(new Set(['cooldown_active']));
  });

  it('answers faucet_unavailable where the deciding node cannot be reached, and grants nothing', async () => {
    await nodes[0]!.stop();
    nodes[0] = undefined;
    const address = generateKeyPair().address;
    const refusal = await new SvcClient(nodes[2]!.url).faucetRequest(address).catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      code: -32011,
      message: 'faucet_unavailable',
      data: { authority: testnet.nodes[0]!.peerId },
    });
  });
});
