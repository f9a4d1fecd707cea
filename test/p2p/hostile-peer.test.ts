import { generateKeyPair } from '@libp2p/crypto/keys';
import { lpStream } from '@libp2p/utils';
import { multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import { signHeader } from '../../sdk/block.js';
import { signedCommit } from '../helpers/commits.js';
import { toHex, type Hex } from '../../sdk/bytes.js';
import { devnetKey } from '../../sdk/keys.js';
import { createNetwork, type SvcLibp2p } from '../../p2p/network.js';
import {
  BLOCKS_PROTOCOL,
  decodeRange,
  decodeStatus,
  encodeBundle,
  encodeGossipBlock,
  encodeStatus,
  encodeTransactionBatch,
  STATUS_PROTOCOL,
  topics,
} from '../../p2p/wire.js';
import { encodeSigned, signTransaction, transferPayload } from '../../sdk/transaction.js';
import { encode } from '../../sdk/encoding.js';
import type { Block } from '../../chain/schemas.js';
import type { Chain } from '../../chain/chain.js';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((stop) => stop()));
});

async function start(config: Parameters<typeof startTestNode>[0]): Promise<TestNode> {
  const node = await startTestNode(config);
  cleanup.push(() => node.stop());
  return node;
}

const ZERO = `0x${'00'.repeat(32)}` as Hex;

/**
 * A chain forged from genesis: blocks properly signed with the (public) devnet validator key, but
 * with a state root that re-execution can't give. Only full verification tells them apart.
 */
function forgedChain(genesis: Block, length: number): Block[] {
  const key = devnetKey('validator', 0);
  const blocks: Block[] = [];
  let parent = genesis;
  for (let height = 1; height <= length; height++) {
    const signed = signHeader(
      {
        chainId: genesis.chainId,
        height,
        parentHash: parent.hash as Hex,
        timestamp: genesis.timestamp + height * 1000,
        proposer: key.address,
        proposerKey: toHex(key.publicKey),
        txRoot: ZERO,
        stateRoot: toHex(new Uint8Array(32).fill(height)),
        receiptRoot: ZERO,
        lastCommit: height === 1 ? null : signedCommit(genesis.chainId, parent),
      },
      key,
    );
    parent = { ...signed, transactions: [] };
    blocks.push(parent);
  }
  return blocks;
}

/**
 * A libp2p peer that claims a far higher head (or `claim`) and serves forged blocks for it, or, with
 * `uncertified`, the honest chain's own blocks with certificates signed by a key outside the set.
 */
async function startHostilePeer(honest: Chain, claim = 1_000_000, uncertified = false): Promise<SvcLibp2p> {
  const genesis = (await honest.getBlock(0))!;
  const forged = forgedChain(genesis, 100);
  const network = await createNetwork({
    privateKey: await generateKeyPair('Ed25519'),
    host: '127.0.0.1',
    port: 0,
    bootstrapPeers: [],
    refuses: () => false,
    maxConnections: 16,
  });
  await network.handle(STATUS_PROTOCOL, async (stream) => {
    const lp = lpStream(stream);
    decodeStatus((await lp.read()).subarray());
    await lp.write(
      encodeStatus({
        chainId: genesis.chainId,
        rulesVersion: honest.genesis.rulesVersion,
        genesis: honest.genesisHash,
        height: claim,
        hash: forged.at(-1)!.hash,
      }),
    );
    await stream.close();
  });
  await network.handle(BLOCKS_PROTOCOL, async (stream) => {
    const lp = lpStream(stream);
    const { from, count } = decodeRange((await lp.read()).subarray());
    if (uncertified) {
      const real = (
        await Promise.all(Array.from({ length: count }, (_, i) => honest.blockWithTransactions(from + i)))
      ).filter((b) => b !== undefined);
      await lp.write(new Uint8Array([real.length]));
      for (const { block, raws } of real)
        await lp.write(
          encodeBundle({ block, raws, commit: signedCommit(block.chainId, block, devnetKey('account', 7)) }),
        );
      return stream.close();
    }
    const blocks = forged.slice(from - 1, from - 1 + count);
    await lp.write(new Uint8Array([blocks.length]));
    // Certified with the public devnet key: only re-execution finds them out.
    for (const block of blocks)
      await lp.write(encodeBundle({ block, raws: [], commit: signedCommit(block.chainId, block) }));
    await stream.close();
  });
  await network.start();
  cleanup.push(async () => {
    await network.stop();
  });
  return network;
}

describe('a hostile peer', () => {
  it('that serves forged blocks is refused and disconnected, and the node syncs from the honest validator', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const honest = validator.node.service<Chain>('chain');
    const hostile = await startHostilePeer(honest);
    const validatorAddress = validator.node.service<P2pService>('p2p').listenAddresses[0]!;
    const full = await start({
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [hostile.getMultiaddrs()[0]!.toString(), validatorAddress] },
    });
    const hostileId = hostile.peerId.toString();

    const refusal = await waitFor(
      () => full.logs.lines.find((line) => String(line.msg).startsWith('refusing peer') && line.peer === hostileId),
      Boolean,
      15_000,
      'the forger to be refused',
    );
    expect(String(refusal!.reason)).toMatch(/state root mismatch|does not extend head/);
    const chain = full.node.service<Chain>('chain');
    await waitFor(
      () => chain.head.height,
      (h) => h >= honest.head.height - 2 && h > 0,
      15_000,
      'sync from the honest validator',
    );
    expect((await chain.getBlock(1))!.hash).toBe((await honest.getBlock(1))!.hash);
    await waitFor(
      () => hostile.getConnections().length,
      (n) => n === 0,
      10_000,
      'the forger to be disconnected',
    );
    expect(
      full.node
        .service<P2pService>('p2p')
        .peerList()
        .map((p) => p.peerId),
    ).toEqual([validator.node.keys.peerId]);
    // It stays refused: the bootstrap redials skip it, and its own dials are turned away.
    await hostile.dial(multiaddr(full.node.service<P2pService>('p2p').listenAddresses[0]!)).catch(() => undefined);
    await waitFor(
      () => hostile.getConnections().length,
      (n) => n === 0,
      10_000,
      'the redial to be turned away',
    );
    expect(
      full.node
        .service<P2pService>('p2p')
        .peerList()
        .map((p) => p.peerId),
    ).toEqual([validator.node.keys.peerId]);
  });

  it('that serves the real blocks with certificates of a key outside the set is refused before any is executed', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const honest = validator.node.service<Chain>('chain');
    await waitFor(
      () => honest.head.height,
      (h) => h >= 5,
      10_000,
      'a few blocks to serve',
    );
    const hostile = await startHostilePeer(honest, honest.head.height, true);
    const full = await start({
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [hostile.getMultiaddrs()[0]!.toString()] },
    });
    const refusal = await waitFor(
      () => full.logs.lines.find((line) => String(line.msg).startsWith('refusing peer')),
      Boolean,
      15_000,
      'the peer to be refused',
    );
    expect(String(refusal!.reason)).toMatch(/block 1 .*: its commit certificate: svc1\w+ is not in the validator set/);
    expect(full.node.service<Chain>('chain').head.height).toBe(0);
  });

  it('that gossips a block with a bad signature is refused and disconnected; the node keeps following the validator', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const honest = validator.node.service<Chain>('chain');
    const hostile = await startHostilePeer(honest, 0);
    const validatorAddress = validator.node.service<P2pService>('p2p').listenAddresses[0]!;
    const full = await start({
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [hostile.getMultiaddrs()[0]!.toString(), validatorAddress] },
    });
    const chain = full.node.service<Chain>('chain');
    await waitFor(
      () => chain.head.height,
      (h) => h >= 3,
      10_000,
    );
    const topic = topics(honest.head.chainId, honest.genesisHash).blocks;
    await waitFor(
      () => hostile.services.pubsub.getSubscribers(topic).map(String),
      (ids) => ids.includes(full.node.keys.peerId),
      10_000,
      'the node to subscribe',
    );
    const real = (await honest.blockWithTransactions(honest.head.height))!;
    // Far ahead: a block at a height the node has committed meanwhile is ignored unread, whatever it holds.
    const forged = { ...real.block, height: real.block.height + 1000, signature: toHex(new Uint8Array(64).fill(9)) };
    await hostile.services.pubsub.publish(
      topic,
      encodeGossipBlock({ block: forged, raws: real.raws, commit: real.commit }),
    );
    const refusal = await waitFor(
      () =>
        full.logs.lines.find(
          (line) => String(line.msg).startsWith('refusing peer') && line.peer === hostile.peerId.toString(),
        ),
      Boolean,
      10_000,
      'the gossiper to be refused',
    );
    expect(String(refusal!.reason)).toMatch(/header hash does not match|bad proposer signature/);
    await waitFor(
      () => hostile.getConnections().length,
      (n) => n === 0,
      10_000,
      'the gossiper to be disconnected',
    );
    const after = chain.head.height;
    await waitFor(
      () => chain.head.height,
      (h) => h >= after + 3,
      10_000,
      'the node to keep following the validator',
    );
  });

  it('that gossips a block under a height it is not is refused and disconnected', async () => {
    const validator = await start({ validator: { blockTime: 50 } });
    const honest = validator.node.service<Chain>('chain');
    await waitFor(
      () => honest.head.height,
      (h) => h >= 2,
      10_000,
      'a block to copy',
    );
    const hostile = await startHostilePeer(honest, 0);
    const full = await start({
      role: 'full',
      p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [hostile.getMultiaddrs()[0]!.toString()] },
    });
    const topic = topics(honest.head.chainId, honest.genesisHash).blocks;
    await waitFor(
      () => hostile.services.pubsub.getSubscribers(topic).map(String),
      (ids) => ids.includes(full.node.keys.peerId),
      10_000,
      'the node to subscribe',
    );
    const real = (await honest.blockWithTransactions(1))!;
    await hostile.services.pubsub.publish(
      topic,
      encode([1000, encodeBundle({ block: real.block, raws: real.raws, commit: real.commit })]),
    );
    const refusal = await waitFor(
      () =>
        full.logs.lines.find(
          (line) => String(line.msg).startsWith('refusing peer') && line.peer === hostile.peerId.toString(),
        ),
      Boolean,
      10_000,
      'the gossiper to be refused',
    );
    expect(String(refusal!.reason)).toMatch(/it says height 1000 for block 1/);
    await waitFor(
      () => hostile.getConnections().length,
      (n) => n === 0,
      10_000,
      'the gossiper to be disconnected',
    );
  });

  it('that gossips a batch of transactions with a badly signed one: each is checked on its own: the good ones are admitted, the forged one never', async () => {
    const validator = await start({ validator: { blockTime: 60_000 } });
    const honest = validator.node.service<Chain>('chain');
    const hostile = await startHostilePeer(honest, 0);
    const full = await start({
      role: 'full',
      p2p: {
        host: '127.0.0.1',
        port: 0,
        bootstrapPeers: [
          hostile.getMultiaddrs()[0]!.toString(),
          validator.node.service<P2pService>('p2p').listenAddresses[0]!,
        ],
      },
    });
    const topic = topics(honest.head.chainId, honest.genesisHash).transactions;
    await waitFor(
      () => hostile.services.pubsub.getSubscribers(topic).map(String),
      (ids) => ids.includes(full.node.keys.peerId),
      10_000,
      'the node to subscribe',
    );
    const transfer = (from: number, nonce: number) =>
      signTransaction(
        {
          chainId: honest.head.chainId,
          kind: 'transfer',
          nonce,
          payload: transferPayload(devnetKey('account', 9).address, 'OMC', 1n),
        },
        devnetKey('account', from),
      );
    const good = [transfer(1, 0), transfer(2, 0)];
    const forged = { ...transfer(3, 0), signature: toHex(new Uint8Array(64).fill(7)) };
    const chain = full.node.service<Chain>('chain');
    // Sent again until it lands: a peer seen subscribed may not take this one's messages yet (its mesh
    // forms a moment later). Gossip ids are the hash of the bytes, so a resend identical to the first
    // would be dropped as a duplicate by the sender itself: each carries one more good transfer of its
    // own (account 4, the next nonce). The node drops the transactions it has as already known.
    let sent = 0;
    let sentAt = 0;
    await waitFor(
      async () => {
        if (Date.now() - sentAt > 500) {
          sentAt = Date.now();
          const batch = encodeTransactionBatch([...good, forged, transfer(4, sent++)].map(encodeSigned));
          await hostile.services.pubsub.publish(topic, batch).catch(() => undefined);
        }
        return good.every((tx) => chain.isPending(tx.hash));
      },
      Boolean,
      20_000,
      'the good transactions to be pending',
    );
    expect(chain.isPending(forged.hash)).toBe(false);
    expect(await chain.getTransaction(forged.hash)).toBeUndefined();
  });
});
