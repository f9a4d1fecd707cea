import { describe, expect, it } from 'vitest';
import { MovingAverage } from '../../chain/moving-average.js';

describe('a moving average', () => {
  it('is 0 before any sample, the first sample after it, and moves a weight of the way to each later one', () => {
    const average = new MovingAverage(0.25);
    expect(average.value).toBe(0);
    average.add(8);
    expect(average.value).toBe(8);
    average.add(16);
    expect(average.value).toBe(10);
    average.add(10);
    expect(average.value).toBe(10);
  });
});
