/**
 * An exponentially weighted moving average: the latest samples weigh most, so it follows a machine
 * whose speed moves. 0 until the first sample.
 */
export class MovingAverage {
  private current = 0;
  private seen = false;

  /** `weight`: the share of each new sample, in (0, 1]. */
  constructor(private readonly weight: number) {}

  add(sample: number): void {
    this.current = this.seen ? this.current + this.weight * (sample - this.current) : sample;
    this.seen = true;
  }

  get value(): number {
    return this.current;
  }
}
