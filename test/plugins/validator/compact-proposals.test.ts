import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lpStream } from '@libp2p/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, toHex, type KeyPair } from '../../../sdk/index.js';
import { signWith } from '../../../sdk/keys.js';
import { signHeader } from '../../../sdk/block.js';
import { decode, encode } from '../../../sdk/encoding.js';
import { encodeSigned, signTransaction, transferPayload, type SignedTransaction } from '../../../sdk/transaction.js';
import type { Hex } from '../../../sdk/bytes.js';
import { proposalSignBytes, voteSignBytes } from '../../../consensus/messages.js';
import { encodeBundle } from '../../../p2p/wire.js';
import type { Block } from '../../../chain/schemas.js';
import type { Chain } from '../../../chain/chain.js';
import type { P2pService } from '../../../p2p/service.js';
import type { StakingService } from '../../../plugins/staking/service.js';
import { CONSENSUS_TOPIC } from '../../../plugins/validator/consensus-driver.js';
import type {} from '../../../plugins/validator/index.js';
import {
  BLOCK_TRANSACTIONS_PROTOCOL,
  MAX_REQUESTED_TRANSACTIONS,
  requestTransactions,
} from '../../../plugins/validator/transactions-protocol.js';
import { startTestNode, tempDir, waitFor, type TestNode } from '../../helpers/test-node.js';

// Four validators at equal power: three honest nodes and one whose key only this test holds (its
// node is the observer, a full node the test speaks through). The three decide every height without
// it; at the heights where it proposes, the test sends proposals whose blocks travel as hashes, and the
// observer answers the validators' requests for the transactions they lack as the test says.
const BLOCK_MS = 300;
const CHAIN_ID = 'svc-compactnet-1';
const genesisKey = generateKeyPair();
const honestKeys = [generateKeyPair(), generateKeyPair()];
const hostile = generateKeyPair();
const sender = generateKeyPair();
const dir = tempDir();
const genesisFile = join(dir, 'genesis.json');
const testnet = { network: 'compactnet', genesis: genesisFile };

let validators: TestNode[] = [];
let observer: TestNode;
let topic: { publish(data: Uint8Array): boolean };
let nonce = 0;

/** How the observer answers a validator that asks it for a block's transactions. */
type Answer = 'honestly' | 'with nothing' | 'never' | 'with other transactions';
let answer: Answer = 'honestly';
let asked = 0;
/** A valid transaction of this chain that no block here lists: what a lying peer answers with. */
const stranger = encodeSigned(
  signTransaction(
    { chainId: CHAIN_ID, kind: 'transfer', nonce: 0, payload: transferPayload(sender.address, 'OMC', 1n) },
    generateKeyPair(),
  ),
);

const keyFile = (key: KeyPair): string => {
  const file = join(tempDir(), 'validator.key');
  writeFileSync(file, toHex(key.secretKey));
  return file;
};
const chainOf = (node: TestNode): Chain => node.node.service<Chain>('chain');
const observerChain = (): Chain => chainOf(observer);

beforeAll(async () => {
  writeFileSync(
    genesisFile,
    JSON.stringify({
      chainId: CHAIN_ID,
      timestamp: Date.now() - 60_000,
      // The hostile key never votes: with the default liveness rule it would be jailed (out of the set,
      // no more turns to propose) after missing 50 blocks, and a busy machine's retried turns get there.
      livenessWindow: 10_000,
      maxMissedBlocks: 9_999,
      validatorKey: toHex(genesisKey.publicKey),
      validator: genesisKey.address,
      accounts: [
        ...[...honestKeys, hostile].map((k) => ({ address: k.address, omc: '10', ogt: '20', bonded: { stake: '20' } })),
        { address: sender.address, omc: '1000', ogt: '0' },
      ],
      validators: [...honestKeys, hostile].map((k, i) => ({
        operator: k.address,
        consensusKey: toHex(k.publicKey),
        stake: '20',
        moniker: `v${i + 1}`,
      })),
    }),
  );
  const first = await startTestNode({ ...testnet, validator: { blockTime: BLOCK_MS, keyFile: keyFile(genesisKey) } });
  validators = [first];
  const bootstrap = [first.node.service<P2pService>('p2p').listenAddresses[0]!];
  for (const [i, key] of honestKeys.entries())
    validators.push(
      await startTestNode(
        {
          ...testnet,
          validator: { blockTime: BLOCK_MS, keyFile: keyFile(key) },
          p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap },
        },
        [],
        // One logs at debug: what it says of each proposal it checks.
        { logLevel: i === 0 ? 'debug' : 'info' },
      ),
    );
  observer = await startTestNode({
    ...testnet,
    role: 'full',
    p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: bootstrap },
  });
  const p2p = observer.node.service<P2pService>('p2p');
  topic = p2p.gossipTopic(CONSENSUS_TOPIC, () => 'ignore');
  await p2p.handleProtocol(BLOCK_TRANSACTIONS_PROTOCOL, async (stream) => {
    asked += 1;
    const lp = lpStream(stream);
    const hashes = decode<string[]>((await lp.read()).subarray());
    if (answer === 'never') return new Promise<void>(() => undefined);
    const raws = hashes.map((hash) => {
      if (answer === 'with nothing') return null;
      if (answer === 'with other transactions') return stranger;
      const tx = observerChain().pendingTransaction(hash);
      return tx ? observerChain().rawTransaction(tx) : null;
    });
    await lp.write(encode(raws));
    await stream.close();
  });
  await waitFor(
    () => Math.min(...validators.map((v) => chainOf(v).head.height)),
    (height) => height >= 3,
    30_000,
    'the three honest validators deciding blocks',
  );
  // A peer the observer connects to later would be pushed its pending transactions.
  await waitFor(
    () => p2p.peerList().length,
    (peers) => peers >= validators.length,
    30_000,
    'the observer connected to every validator',
  );
}, 90_000);

afterAll(async () => {
  await Promise.all([...validators, observer].map((node) => node?.stop()));
});

function transfer(): SignedTransaction {
  return signTransaction(
    {
      chainId: CHAIN_ID,
      kind: 'transfer',
      nonce: nonce++,
      payload: transferPayload(genesisKey.address, 'OMC', 1n),
    },
    sender,
  );
}

/**
 * The next height the hostile key proposes at round 0, as every node's head reaches the one below it.
 * A turn already under way when this is called is let go: its round may be nearly over (the caller's
 * work before it took 300 ms and more of a 600 ms window, and the proposal came after the timeout).
 */
async function hostileTurn(): Promise<number> {
  const staking = observer.node.service<StakingService>('staking');
  let before = true;
  return waitFor(
    () => observerChain().head.height + 1,
    (height) => {
      const turn =
        staking.proposerOf(height, 0).proposer.operator === hostile.address &&
        validators.every((v) => chainOf(v).head.height === height - 1);
      if (!turn) before = false;
      return turn && !before;
    },
    30_000,
    "the hostile key's turn to propose",
  );
}

/**
 * At the hostile key's next turn, its proposal of the block `build` makes; again at later turns
 * when the validators had decided the height before it reached them (a busy machine), until `landed`
 * says the proposal was judged (within 3 s of the height's decision).
 */
async function atHostileTurn(
  build: () => Block | Promise<Block>,
  landed: (block: Block, decided: Block) => boolean,
  before?: () => Promise<void>,
): Promise<{ block: Block; decided: Block }> {
  // Turns for 45 s: another test file's processes can hold this machine's cores that long.
  for (const until = Date.now() + 45_000; Date.now() < until; ) {
    await before?.();
    await hostileTurn();
    const block = await build();
    const decided = await propose(block);
    // A fetch that is never answered is given up after a block time or more: the round moved on before.
    const judged = await waitFor(
      () => landed(block, decided),
      (yes) => yes,
      3_000,
      'the proposal judged',
    ).catch(() => false);
    if (judged) return { block, decided };
  }
  throw new Error("for 45 s the validators decided the hostile key's heights before its proposal reached them");
}

/**
 * A sender of the hostile key's signed proposal of `block` at `round`, its block as hashes: each call
 * sends it again with a new time (gossip delivers a message once, to the peers in the mesh then).
 */
function hostileProposal(block: Block, round: number): () => boolean {
  const proposal = { height: block.height, round, value: block.hash, validRound: -1, proposer: hostile.address };
  const signed = { ...proposal, signature: toHex(signWith(hostile, proposalSignBytes(CHAIN_ID, proposal))) };
  const bundle = encodeBundle({ block, raws: null, commit: null });
  return () => topic.publish(encode({ kind: 'proposal', proposal: signed, bundle, sentAt: Date.now() }));
}

/** The hostile key's proposal for `block` at round 0 of its height, sent every poll until the validators decided the height. */
async function propose(block: Block): Promise<Block> {
  // (A proposal of a height already decided is ignored: the caller's turn passed.)
  const send = hostileProposal(block, 0);
  const decided = await waitFor(
    async () => {
      send();
      return chainOf(validators[0]!).getBlock(block.height);
    },
    (committed) => committed !== undefined,
    30_000,
    `height ${block.height} decided`,
  );
  // Every honest validator committed the same block there.
  for (const v of validators)
    await waitFor(
      async () => (await chainOf(v).getBlock(block.height))?.hash,
      (hash) => hash === decided!.hash,
      10_000,
      'the same block on every validator',
    );
  return decided!;
}

/** A block signed by the hostile key on the head, listing `transactions`; its roots are made up. */
function forged(transactions: string[]): Block {
  const head = chainOf(validators[0]!).head;
  const signed = signHeader(
    {
      chainId: CHAIN_ID,
      height: head.height + 1,
      parentHash: head.hash as Hex,
      timestamp: Math.max(Date.now(), head.timestamp + 1),
      proposer: hostile.address,
      proposerKey: toHex(hostile.publicKey),
      txRoot: `0x${'00'.repeat(32)}`,
      stateRoot: `0x${'00'.repeat(32)}`,
      receiptRoot: `0x${'00'.repeat(32)}`,
      lastCommit: head.lastCommit,
    },
    hostile,
  );
  return { ...signed, transactions };
}

/** What the validators logged about the proposal at `height`, round 0: message and reason. */
const loggedAt = (height: number): { msg: string; reason: string }[] =>
  validators.flatMap((v) =>
    v.logs.lines
      .filter((line) => line.height === height && line.round === 0)
      .map((line) => ({ msg: String(line.msg), reason: String(line.reason) })),
  );

describe('compact proposals: blocks travel as hashes', { timeout: 120_000 }, () => {
  it("a validator logs, at debug, where each proposal's time went: filling it, waiting its turn, executing it", async () => {
    const debugging = validators[1]!;
    // A transfer each poll until a block holding one was proposed by another validator and checked here.
    const line = await waitFor(
      async () => {
        const found = debugging.logs.lines.find(
          (l) => l.msg === 'checked a proposed block' && (l.transactions as number) >= 1 && l.valid === true,
        );
        if (!found) await chainOf(validators[0]!).submitRaw(encodeSigned(transfer()));
        return found;
      },
      (found) => found !== undefined,
      30_000,
      'the debug line of a checked block with a transfer in it',
    );
    expect(line!.transactions).toBeGreaterThanOrEqual(1);
    for (const field of ['fetched', 'gatherMs', 'queuedMs', 'checkMs'])
      expect(Number.isInteger(line![field]) && (line![field] as number) >= 0, field).toBe(true);
  });

  it('validators take decided blocks from consensus, not from block gossip; the full node still gets them by gossip', async () => {
    const imported = new Map<TestNode, { height: number; source: string }[]>();
    const offs = [...validators, observer].map((node) => {
      const events: { height: number; source: string }[] = [];
      imported.set(node, events);
      return node.node.events.on('p2p:imported', (event) => void events.push(event));
    });
    try {
      const from = chainOf(validators[0]!).head.height;
      await waitFor(
        () => imported.get(observer)!.filter((event) => event.source === 'gossip').length,
        (gossiped) => gossiped >= 5,
        20_000,
        'five blocks gossiped to the full node',
      );
      expect(chainOf(validators[0]!).head.height).toBeGreaterThan(from);
      for (const v of validators) expect(imported.get(v)!.filter((event) => event.source === 'gossip')).toEqual([]);
    } finally {
      for (const off of offs) off();
    }
  });

  it('a proposal of transactions only the relaying peer holds: the validators fetch them, check the block and commit it', async () => {
    const txs = [transfer(), transfer(), transfer()];
    answer = 'honestly';
    asked = 0;
    const { block } = await atHostileTurn(
      async () => {
        // Admitted on the observer as if a peer had gossiped them: it relays none of them (and,
        // connected to every validator already, pushes its pending ones to no new peer).
        for (const tx of txs)
          if (!observerChain().pendingTransaction(tx.hash))
            await observerChain().submitRaw(encodeSigned(tx), { viaGossip: true });
        for (const v of validators)
          for (const tx of txs) expect(chainOf(v).pendingTransaction(tx.hash)).toBeUndefined();
        return observerChain().proposeBlock(hostile, Math.max(Date.now(), observerChain().head.timestamp + 1));
      },
      (block, decided) => decided.hash === block.hash,
    );
    expect(block.transactions).toEqual(txs.map((tx) => tx.hash));
    expect(asked).toBeGreaterThan(0);
    for (const v of validators) expect((await chainOf(v).getReceipt(txs[2]!.hash))?.status).toBe('success');
  });

  it('a proposal of transactions a validator is still admitting from gossip: it waits for them instead of asking the relaying peer', async () => {
    // Enough that decoding them outlasts the proposal's way to the validators.
    const count = 100;
    answer = 'never';
    asked = 0;
    let lacked = false;
    let raws: Uint8Array[] = [];
    // A node's decoding threads start with its first batch of more than a few transactions (about 0.4 s
    // of CPU each; three validators' at once here): started now, they would otherwise outlast the
    // validators' wait for their admissions, and they would ask the peer, which never answers.
    await Promise.all(validators.map((v) => chainOf(v).decodeTransactions(Array.from({ length: 8 }, () => stranger))));
    const { block } = await atHostileTurn(
      async () => {
        const proposed = await observerChain().proposeBlock(
          hostile,
          Math.max(Date.now(), observerChain().head.timestamp + 1),
        );
        // As if a peer had just gossiped them: each validator is decoding them when the proposal comes.
        for (const v of validators)
          for (const raw of raws)
            void chainOf(v)
              .submitRaw(raw, { viaGossip: true })
              .catch(() => undefined);
        lacked = validators.every(
          (v) => proposed.transactions.filter((hash) => !chainOf(v).pendingTransaction(hash)).length > count / 2,
        );
        return proposed;
      },
      (block, decided) => decided.hash === block.hash,
      // Admitted on the observer (which relays none of them) before the turn: its round's propose
      // window is 600 ms, and admitting them takes half of that.
      async () => {
        raws = Array.from({ length: count }, () => encodeSigned(transfer()));
        await Promise.all(raws.map((raw) => observerChain().submitRaw(raw, { viaGossip: true })));
      },
    );
    expect(block.transactions.length).toBeGreaterThan(count / 2);
    expect(lacked).toBe(true);
    answer = 'honestly';
  });

  it('a proposal listing one transaction twice: judged invalid without asking anyone; the height is decided in a later round', async () => {
    const tx = transfer();
    await chainOf(validators[0]!).submitRaw(encodeSigned(tx));
    asked = 0;
    const { block, decided } = await atHostileTurn(
      () => forged([tx.hash, tx.hash]),
      (block) => loggedAt(block.height).some((line) => line.msg === 'proposed block is not a valid block'),
    );
    expect(decided.hash).not.toBe(block.hash);
    expect(asked).toBe(0);
  });

  for (const [how, why] of [
    ['with nothing', /did not give 1 of the 1/],
    ['never', /did not give them/],
    ['with other transactions', /did not give 1 of the 1/],
  ] as const)
    it(`a proposal listing a transaction no validator holds, the relaying peer answering ${how}: no vote for it, the round times out and the height is decided`, async () => {
      // Signed but never sent anywhere: only the hostile proposer could have it.
      const withheld = transfer();
      nonce -= 1;
      answer = how;
      asked = 0;
      const { block, decided } = await atHostileTurn(
        () => forged([withheld.hash]),
        (block) => loggedAt(block.height).some((line) => why.test(line.reason)),
      );
      expect(decided.hash).not.toBe(block.hash);
      expect(asked).toBeGreaterThan(0);
      // The honest validators' logs say how the round ended: their propose timeout, and a nil prevote.
      expect(loggedAt(block.height).some((line) => line.msg === 'the propose timeout fired: prevoted nil')).toBe(true);
      // Nothing stays stuck: the chain goes on past it.
      await waitFor(
        () => Math.min(...validators.map((v) => chainOf(v).head.height)),
        (h) => h >= block.height + 2,
        20_000,
        'two more heights',
      );
    });

  it("answers a peer's request for a block's transactions from what it holds, and refuses one that is not a list of hashes", async () => {
    const p2p = observer.node.service<P2pService>('p2p');
    const validator = validators[1]!.node.service<P2pService>('p2p').peerId;
    const tx = transfer();
    await chainOf(validators[0]!).submitRaw(encodeSigned(tx));
    await waitFor(
      () => chainOf(validators[1]!).getRawTransaction(tx.hash),
      (found) => found !== undefined,
      15_000,
      'the transfer mined',
    );
    const signal = AbortSignal.timeout(10_000);
    const unknown = `0x${'ab'.repeat(32)}`;
    const answered = await requestTransactions(
      await p2p.openStream(validator, BLOCK_TRANSACTIONS_PROTOCOL, signal),
      [tx.hash, unknown],
      signal,
    );
    expect(answered[0]).toEqual(encodeSigned(tx));
    expect(answered[1]).toBeUndefined();
    for (const bad of [
      encode({ hashes: [tx.hash] }),
      encode(['0xnot-a-hash']),
      encode(Array.from({ length: MAX_REQUESTED_TRANSACTIONS + 1 }, () => unknown)),
    ]) {
      const stream = await p2p.openStream(validator, BLOCK_TRANSACTIONS_PROTOCOL, signal);
      const lp = lpStream(stream, { maxDataLength: 4 * 1024 * 1024 });
      await lp.write(bad, { signal });
      await expect(lp.read({ signal })).rejects.toThrow();
    }
    // Still answering.
    const again = await requestTransactions(
      await p2p.openStream(validator, BLOCK_TRANSACTIONS_PROTOCOL, signal),
      [tx.hash],
      signal,
    );
    expect(again[0]).toEqual(encodeSigned(tx));
  });
});

/**
 * The first validator's next two proposal builds at round 0 (whose propose timeout is the block time),
 * with each one's round start, call time and deadline (performance.now() ms), its store made slower by
 * `ms` before each build (the head's commit, which the proposer reads first): the build starts `ms`
 * into the round.
 */
async function buildsStartingLate(ms: number): Promise<{ began: number; calledAt: number; deadline: number }[]> {
  const node = validators[0]!;
  const chain = chainOf(node);
  const roundBegan = new Map<number, { round: number; at: number }>();
  const off = node.node.events.on(
    'consensus:round',
    ({ height, round }) => void roundBegan.set(height, { round, at: performance.now() }),
  );
  const builds: { began: number; calledAt: number; deadline: number }[] = [];
  const { getCommit, proposeBlock } = chain;
  chain.getCommit = async (height) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return getCommit.call(chain, height);
  };
  chain.proposeBlock = (key, timestamp, maxBytes, deadline) => {
    const began = roundBegan.get(chain.head.height + 1)!;
    if (began.round === 0) builds.push({ began: began.at, calledAt: performance.now(), deadline: deadline! });
    return proposeBlock.call(chain, key, timestamp, maxBytes, deadline);
  };
  try {
    await waitFor(
      () => builds.length,
      (n) => n >= 2,
      30_000,
      'two proposals built at round 0 by the slowed validator',
    );
  } finally {
    off();
    chain.getCommit = getCommit;
    chain.proposeBlock = proposeBlock;
  }
  return builds;
}

describe("the proposer's deadline", { timeout: 60_000 }, () => {
  it('a proposer whose build starts late is to finish its block half the block time after its round began, not after the build began', async () => {
    const builds = await buildsStartingLate(60);
    for (const { began, calledAt, deadline } of builds) {
      expect(calledAt - began).toBeGreaterThanOrEqual(55); // (a timer may fire a fraction of a millisecond early)
      // Half of the 300 ms block time from the round's start, or a tenth of it from the build's if that
      // is later (counted from the build's, it would be 150 ms after a call at least 60 ms into the round).
      expect(deadline).toBeGreaterThanOrEqual(calledAt + BLOCK_MS / 10 - 1);
      expect(deadline).toBeLessThanOrEqual(Math.max(began + BLOCK_MS / 2, calledAt + BLOCK_MS / 10) + 5);
    }
  });

  it("a proposer whose build starts at the end of its round's propose window is to finish it before its propose timeout ends, not a tenth of the block time after the build began", async () => {
    // 280 ms into a round whose propose timeout is the 300 ms block time (round 0's).
    const builds = await buildsStartingLate(BLOCK_MS - 20);
    for (const { began, calledAt, deadline } of builds) {
      expect(calledAt - began).toBeGreaterThanOrEqual(BLOCK_MS - 25);
      // A tenth of the block time before the timeout ends (a tenth from the build would be 30 ms past it).
      expect(deadline).toBeLessThanOrEqual(began + BLOCK_MS - BLOCK_MS / 10 + 5);
    }
    // The chain goes on.
    const from = chainOf(validators[0]!).head.height;
    await waitFor(
      () => chainOf(validators[0]!).head.height,
      (h) => h >= from + 2,
      20_000,
      'two more heights',
    );
  });
});

describe('a validator that has decided a height', { timeout: 60_000 }, () => {
  it("executes no other block of it before the commit: a later round's proposal whose check was queued behind the decided block's is not checked", async () => {
    const v0 = validators[0]!;
    const chain = chainOf(v0);
    const staking = v0.node.service<StakingService>('staking');
    const { checkProposal, decodeTransactions } = chain;
    // Only the observer holds it: the validator fetches it for the later round's block, and decoding
    // it is the last step before that block's check is queued.
    const onlyObserved = transfer();
    await observerChain().submitRaw(encodeSigned(onlyObserved), { viaGossip: true });
    answer = 'honestly';
    let laterQueued = false;
    chain.decodeTransactions = async (raws) => {
      const decoded = await decodeTransactions.call(chain, raws);
      // (The block's check is queued in the microtasks after this; a poll's timer runs after them.)
      if (decoded.some((tx) => tx?.hash === onlyObserved.hash)) laterQueued = true;
      return decoded;
    };
    const checked: string[] = [];
    let held: { height: number; decided: string; later: string } | undefined;
    chain.checkProposal = async (block, raws, already) => {
      checked.push(block.hash);
      // The first check of another honest validator's proposal in its round's propose step: held until
      // the height is decided here.
      const { height, round, step } = await staking.consensusState();
      if (
        !held &&
        step === 'propose' &&
        height === block.height &&
        block.proposer !== genesisKey.address &&
        block.proposer !== hostile.address
      ) {
        const later = forged([onlyObserved.hash]);
        held = { height, decided: block.hash, later: later.hash };
        await holdUntilDecidedWith(block, round!, later, () => laterQueued);
      }
      return checkProposal.call(chain, block, raws, already);
    };
    // The others announce their commit of the held height only after this validator's: its decision
    // then comes from the precommits and its own verdict on the block, not from their certificate.
    const others = validators.slice(1).map(chainOf);
    const commits = others.map((other) => other.commitProposal);
    for (const [i, other] of others.entries())
      other.commitProposal = async (hash, certificate) => {
        if (held && certificate.height === held.height)
          await waitFor(
            () => chain.head.height,
            (height) => height >= certificate.height,
            30_000,
            'its own commit',
          );
        return commits[i]!.call(other, hash, certificate);
      };
    try {
      await waitFor(
        () => chain.head.height,
        (height) => held !== undefined && height >= held.height,
        30_000,
        'the held height committed on the validator',
      );
    } finally {
      chain.checkProposal = checkProposal;
      chain.decodeTransactions = decodeTransactions;
      for (const [i, other] of others.entries()) other.commitProposal = commits[i]!;
    }
    expect((await chain.getBlock(held!.height))?.hash).toBe(held!.decided);
    expect(checked).not.toContain(held!.later);
  });
});

/**
 * Until the first validator has queued its check of `later` (the next round's proposal) behind this
 * one, then until it holds the precommits that decide `block`, proposed at `round`: the hostile key's
 * prevote and precommit for it complete the other honest validators' quorum, sent only once that check
 * is queued, so that the decision is queued after it. Each
 * message is sent again every poll: gossip delivers a message once.
 */
async function holdUntilDecidedWith(block: Block, round: number, later: Block, queued: () => boolean): Promise<void> {
  const send = hostileProposal(later, round + 1);
  await waitFor(
    () => send() && queued(),
    (yes) => yes,
    10_000,
    "the later round's block queued behind this check",
  );
  const votes = (['prevote', 'precommit'] as const).map((type) => {
    const vote = { type, height: block.height, round, value: block.hash, validator: hostile.address };
    return { ...vote, signature: toHex(signWith(hostile, voteSignBytes(CHAIN_ID, vote))) };
  });
  const staking = validators[0]!.node.service<StakingService>('staking');
  await waitFor(
    async () => {
      for (const vote of votes) topic.publish(encode({ kind: 'vote', vote, sentAt: Date.now() }));
      const state = await staking.consensusState();
      const precommitted = Number.parseFloat(state.precommitPower ?? '0') / Number.parseFloat(state.totalPower ?? '1');
      return state.height === block.height && state.round === round && precommitted > 2 / 3;
    },
    (decided) => decided,
    10_000,
    "the decided block's precommits",
  );
}
