import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { P2pService } from '../../p2p/service.js';
import { startTestNode, waitFor, type TestNode } from '../helpers/test-node.js';

// Three nodes in a line, a - b - c: c hears a only through b, which relays what it accepts.
let a: TestNode;
let b: TestNode;
let c: TestNode;
const p2pOf = (node: TestNode): P2pService => node.node.service<P2pService>('p2p');
const addressOf = (node: TestNode): string => p2pOf(node).listenAddresses[0]!;

beforeAll(async () => {
  a = await startTestNode();
  b = await startTestNode({ role: 'full', p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [addressOf(a)] } });
  c = await startTestNode({ role: 'full', p2p: { host: '127.0.0.1', port: 0, bootstrapPeers: [addressOf(b)] } });
}, 60_000);
afterAll(async () => {
  await Promise.all([c?.stop(), b?.stop(), a?.stop()]);
});

describe("a plugin's own gossip topic", () => {
  it('delivers what each node accepts, relayed hop by hop, and stops what a relay rejects', async () => {
    const text = (data: Uint8Array): string => new TextDecoder().decode(data);
    const heard = { b: [] as string[], c: [] as string[] };
    const topicA = p2pOf(a).gossipTopic('test/1', () => 'accept');
    // b passes on greetings and refuses the rest; c takes what reaches it.
    p2pOf(b).gossipTopic('test/1', (data) => {
      heard.b.push(text(data));
      return text(data).startsWith('hello') ? 'accept' : { reject: 'not a greeting' };
    });
    p2pOf(c).gossipTopic('test/1', (data) => {
      heard.c.push(text(data));
      return 'accept';
    });
    const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
    // The mesh forms after the subscriptions travel: publish until b has heard one.
    await waitFor(
      async () => {
        topicA.publish(encode(`hello ${Date.now()}`));
        return heard.c.length;
      },
      (n) => n > 0,
      20_000,
      'a greeting to reach c through b',
    );
    expect(heard.c.every((m) => m.startsWith('hello'))).toBe(true);
    topicA.publish(encode('rude'));
    await waitFor(
      () => heard.b,
      (m) => m.includes('rude'),
      10_000,
      'b to judge the rude message',
    );
    topicA.publish(encode('hello again'));
    await waitFor(
      () => heard.c,
      (m) => m.includes('hello again'),
      10_000,
      'the next greeting at c',
    );
    // Gossip keeps order along one path: the rude one, published before it, would have arrived first.
    expect(heard.c).not.toContain('rude');
  });
});
