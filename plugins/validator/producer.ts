import type { KeyPair } from '../../sdk/keys.js';
import type { BlockProduction } from '../../chain/capabilities.js';
import type { Logger } from '../../kernel/log.js';

export interface ProducerOptions {
  readonly chain: BlockProduction;
  readonly key: KeyPair;
  readonly blockTime: number;
  readonly log: Logger;
}

/**
 * How long a proposer runs transactions into a block, so that a block full of slow contract work
 * keeps the rhythm (what does not fit waits for the next block). A lone validator commits right
 * after: it leaves a fifth of the block time for that. Under consensus the other validators
 * execute the proposal before they vote: it leaves them half. (A third for both left a lone
 * validator's ERC-20 transfers 37% below what it managed without a deadline, with 1 s blocks, and
 * half 20% below: BENCHMARKS.md.)
 */
export const executionBudget = (blockTime: number, validators: 'alone' | 'consensus'): number =>
  validators === 'alone' ? blockTime * 0.8 : blockTime / 2;

/**
 * Produces a block every `blockTime` ms after the head's timestamp, also when empty. After a long
 * stop it produces one block at once and resumes the rhythm from there, rather than catching up.
 */

export class BlockProducer {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private running = false;
  produced = 0;

  constructor(private readonly options: ProducerOptions) {}

  get blockTime(): number {
    return this.options.blockTime;
  }

  /** True when the head is older than 5 block times (production has stopped or fallen far behind). */
  get stalled(): boolean {
    return this.running && Date.now() - this.options.chain.head.timestamp > 5 * this.options.blockTime;
  }

  start(): void {
    this.running = true;
    this.schedule();
  }

  /** Stops scheduling and waits for the block in progress to be committed. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (!this.running) return;
    const due = this.options.chain.head.timestamp + this.options.blockTime;
    this.timer = setTimeout(
      () => {
        this.inFlight = this.produce().finally(() => {
          this.inFlight = undefined;
          this.schedule();
        });
      },
      Math.max(0, due - Date.now()),
    );
  }

  private async produce(): Promise<void> {
    const { chain, key, log, blockTime } = this.options;
    const timestamp = Math.max(Date.now(), chain.head.timestamp + blockTime);
    try {
      await chain.produceBlock(key, timestamp, executionBudget(blockTime, 'alone'));
      this.produced++;
    } catch (error) {
      log.error({ err: error, height: chain.head.height + 1 }, 'block production failed; retrying next interval');
      await new Promise((resolve) => setTimeout(resolve, blockTime));
    }
  }
}
