import type { History } from './history.js';
import type { Manifest, PerturbationKind } from './manifest.js';
import type { NodeProcess } from '../node-process.js';
import type { Random } from './random.js';
import type { Testnet } from './testnet.js';

/** Replaces the peers each node refuses, through the runner's cut plugin (`e2e_denyPeers`). */
export async function setDenied(nodes: readonly NodeProcess[], denied: (node: NodeProcess) => string[]): Promise<void> {
  await Promise.all(nodes.map((node) => node.client(10_000).rpcCall('e2e_denyPeers', [denied(node)])));
}

/**
 * Perturbs the testnet one thing at a time, as drawn from the seed: a node SIGKILLed or SIGTERMed
 * and started again on its data dir after a while, SIGSTOPped then SIGCONTed, restarted at once, the
 * network cut in two (through every node's deny list) and healed, or (on test hosts) a host's link
 * taken down and up again. Everything is recorded.
 *
 * Every listed kind happens at least once: on a busy machine restarts take longer and fewer
 * perturbations fit in the run, so a kind the schedule has not drawn by the end is done then, one
 * after another with the workload still running, before the run stops.
 */
export class Perturber {
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  /** What went wrong undoing a perturbation (a node that would not start again): the run fails on it. */
  readonly problems: string[] = [];

  constructor(
    private readonly testnet: Testnet,
    private readonly history: History,
    private readonly random: Random,
    private readonly manifest: Manifest,
    private readonly say: (line: string) => void,
  ) {}

  start(): void {
    if (this.manifest.perturbations.kinds.length === 0) return;
    this.loop = this.run();
  }

  /** Ends the schedule once the perturbation under way is undone and every listed kind has been done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const { everySeconds, maxSeconds, kinds } = this.manifest.perturbations;
    const notYet = new Set(kinds);
    while (!this.stopped || notYet.size > 0) {
      if (!this.stopped) await this.sleep(this.random.exponential(everySeconds * 1000));
      if (this.stopped && notYet.size === 0) return;
      // Stopped: the kinds not drawn yet, in the seed's order, without waiting between them.
      const kind = this.random.pick(this.stopped ? [...notYet] : kinds);
      notYet.delete(kind);
      const target = this.random.pick(this.testnet.nodes);
      // At least half a second, so each one is felt; the stop of the run does not cut one short.
      const seconds = 0.5 + this.random.fraction() * Math.max(0, maxSeconds - 0.5);
      try {
        await this.perturb(kind, target, seconds);
      } catch (error) {
        this.problems.push(`${kind} of ${target.name}: ${(error as Error).message}`);
        this.say(`perturbation failed: ${kind} of ${target.name}: ${(error as Error).message}`);
      }
    }
  }

  private async perturb(kind: PerturbationKind, node: NodeProcess, seconds: number): Promise<void> {
    const ms = Math.round(seconds * 1000);
    const mark = this.history.disrupted({ kind, node: node.name, at: Date.now() });
    node.note({ perturbation: kind, ms });
    this.say(`${kind} ${node.name}${kind === 'restart' ? '' : ` for ${seconds.toFixed(1)} s`}`);
    switch (kind) {
      case 'kill':
      case 'terminate':
      case 'restart':
        await node.stop(kind === 'kill' ? 'SIGKILL' : 'SIGTERM');
        if (kind !== 'restart') await new Promise((resolve) => setTimeout(resolve, ms));
        await node.start(this.testnet.bootstrapFor(node));
        break;
      case 'pause':
        node.pause();
        await new Promise((resolve) => setTimeout(resolve, ms));
        node.resume();
        break;
      case 'link':
        // The host's link down: no packet to or from it, as when a machine's network fails.
        this.testnet.setLink(node, false);
        await new Promise((resolve) => setTimeout(resolve, ms));
        this.testnet.setLink(node, true);
        break;
      case 'cut': {
        // The network in two: this node and a random part of the rest on one side.
        const others = this.testnet.nodes.filter((n) => n !== node);
        const side = new Set([node, ...others.filter(() => this.random.chance(0.3))]);
        const away = others.filter((n) => !side.has(n));
        if (away.length === 0) away.push(others.find((n) => side.delete(n))!);
        const mine = [...side];
        mark.side = mine.map((n) => n.name);
        mark.away = away.map((n) => n.name);
        await setDenied(this.testnet.nodes, (n) => (side.has(n) ? away : mine).map((peer) => peer.peerId));
        await new Promise((resolve) => setTimeout(resolve, ms));
        await setDenied(this.testnet.nodes, () => []);
        break;
      }
    }
    mark.until = Date.now();
  }
}
