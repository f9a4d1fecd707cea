import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

/**
 * Seeded choices. Each part of a run (the perturbation schedule, each client) draws from a stream of
 * its own, split off the seed's, so one part drawing more or less (a slow node, a refused call) does
 * not change what the others draw.
 */
export class Random {
  private constructor(private readonly rng: JumpableRandomGenerator) {}

  static seeded(seed: number): Random {
    return new Random(xoroshiro128plus(seed));
  }

  /** An independent stream: this one jumps ahead by 2^64 draws, and the new one starts where it was. */
  split(): Random {
    const child = new Random(this.rng.clone());
    this.rng.jump();
    return child;
  }

  /** A whole number from `from` to `to`, both included. */
  int(from: number, to: number): number {
    return uniformInt(this.rng, from, to);
  }

  /** A number in [0, 1). */
  fraction(): number {
    return this.int(0, 0xffffffff) / 0x100000000;
  }

  chance(probability: number): boolean {
    return this.fraction() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('nothing to pick from');
    return items[this.int(0, items.length - 1)]!;
  }

  /** A key drawn with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = (Object.entries(weights) as [K, number][]).filter(([, weight]) => weight > 0);
    let draw = this.int(0, entries.reduce((sum, [, weight]) => sum + weight, 0) - 1);
    for (const [key, weight] of entries) {
      if (draw < weight) return key;
      draw -= weight;
    }
    throw new Error('no weight above 0');
  }

  /** An exponentially distributed wait with this mean (a Poisson process's gaps). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.fraction());
  }
}
