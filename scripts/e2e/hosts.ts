import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

/**
 * The runner's own test hosts: one Linux network namespace per node, each with one address on a
 * bridge the runner creates in its own namespace (where it also has an address, to reach the nodes'
 * RPC), so nodes bind, announce and dial real addresses and never 127.0.0.1. Cutting a host's link
 * takes its side of the bridge down. Everything is removed at the end, also after a failure or when
 * the runner's process exits; namespaces a killed runner left behind are removed by the next one.
 */
export class HostNetwork {
  /** Each host's address, in order. */
  readonly addresses: string[];
  private removed = false;
  private readonly onExit = (): void => this.remove();

  private constructor(
    /** Names the bridge, the namespaces and the links: `svce2e<pid>` (a bridge name has 15 characters at most). */
    private readonly id: string,
    private readonly subnet: string,
    readonly count: number,
  ) {
    this.addresses = Array.from({ length: count }, (_, i) => `${subnet}.${10 + i}`);
  }

  /** Why this process cannot make hosts (not root, no `ip`), or undefined when it can. */
  static unavailable(): string | undefined {
    if (process.platform !== 'linux') return `network namespaces are Linux's (this is ${process.platform})`;
    if (process.getuid?.() !== 0) return 'creating network namespaces needs root';
    try {
      execFileSync('ip', ['netns', 'list'], { stdio: 'pipe' });
    } catch (error) {
      return `iproute2's ip cannot list network namespaces: ${(error as Error).message.split('\n')[0]}`;
    }
    return undefined;
  }

  static create(count: number): HostNetwork {
    removeStale();
    const net = new HostNetwork(`svce2e${process.pid}`, freeSubnet(), count);
    process.once('exit', net.onExit);
    try {
      net.build();
    } catch (error) {
      net.remove();
      throw error;
    }
    return net;
  }

  /** The namespace of host `i`. */
  namespace(i: number): string {
    return `${this.id}-h${i}`;
  }

  /** The argv prefix that runs a command on host `i`. */
  exec(i: number): string[] {
    return ['ip', 'netns', 'exec', this.namespace(i)];
  }

  /** Takes host `i`'s link down, or up again: while it is down no packet crosses it. */
  setLink(i: number, up: boolean): void {
    ip('link', 'set', this.link(i), up ? 'up' : 'down');
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    process.removeListener('exit', this.onExit);
    for (let i = 0; i < this.count; i++) quiet('netns', 'del', this.namespace(i));
    quiet('link', 'del', this.bridge);
  }

  private get bridge(): string {
    return `${this.id}b`;
  }

  private link(i: number): string {
    return `${this.id.slice(-11)}v${i}`;
  }

  private build(): void {
    ip('link', 'add', this.bridge, 'type', 'bridge');
    ip('addr', 'add', `${this.subnet}.1/24`, 'dev', this.bridge);
    ip('link', 'set', this.bridge, 'up');
    for (let i = 0; i < this.count; i++) {
      const ns = this.namespace(i);
      ip('netns', 'add', ns);
      ip('link', 'add', this.link(i), 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      ip('link', 'set', this.link(i), 'master', this.bridge, 'up');
      ip('-n', ns, 'addr', 'add', `${this.addresses[i]}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
    }
  }
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function quiet(...args: string[]): void {
  try {
    ip(...args);
  } catch {
    // Already gone.
  }
}

/** A /24 under 10.0.0.0/8 that no route of this machine covers. */
function freeSubnet(): string {
  const routes = execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' });
  for (;;) {
    const subnet = `10.${randomInt(100, 250)}.${randomInt(0, 256)}`;
    if (!routes.includes(`${subnet}.`)) return subnet;
  }
}

/** Namespaces and bridges of runners that are no longer running. */
function removeStale(): void {
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  for (const match of namespaces.matchAll(/^(svce2e(\d+))-h\d+/gm))
    if (!alive(Number(match[2]))) quiet('netns', 'del', match[0]);
  const links = execFileSync('ip', ['-o', 'link', 'show', 'type', 'bridge'], { encoding: 'utf8' });
  for (const match of links.matchAll(/^\d+: (svce2e(\d+)b)[:@]/gm))
    if (!alive(Number(match[2]))) quiet('link', 'del', match[1]!);
}
