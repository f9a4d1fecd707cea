import { useState } from 'preact/hooks';
import { Chart } from './chart.js';
import { usePoll } from './load.js';

/** Samples kept per chart: ten minutes of 2 s samples. */
const KEEP = 300;

export interface Samples {
  /** Unix seconds of each sample. */
  readonly times: readonly number[];
  readonly values: Readonly<Record<string, readonly number[]>>;
}

/**
 * Values read every `everyMs` while the page is open, the last few hundred kept: what the node says
 * now (its mempool, its peers, jobs, stored bytes) drawn over time. A failed read skips a sample.
 */
export function useSamples(read: () => Promise<Record<string, number>>, everyMs = 2000): Samples {
  const [samples, setSamples] = useState<Samples>({ times: [], values: {} });
  usePoll(read, everyMs, (value) =>
    setSamples((known) => ({
      times: [...known.times, Date.now() / 1000].slice(-KEEP),
      values: Object.fromEntries(
        Object.entries(value).map(([name, v]) => [name, [...(known.values[name] ?? []), v].slice(-KEEP)]),
      ),
    })),
  );
  return samples;
}

const COLORS = ['#3b82f6', '#10b981', '#f59e0b', '#ef4444'];

/** Samples as a chart over time, a line per value; nothing until two samples are in. */
export function SampledChart({ title, samples, testId }: { title: string; samples: Samples; testId: string }) {
  if (samples.times.length < 2) return null;
  const series = Object.entries(samples.values).map(([label, values], i) => ({
    label,
    values,
    color: COLORS[i % COLORS.length]!,
  }));
  const summary = series.map((s) => `${s.label} now ${s.values.at(-1)}`).join(', ');
  return <Chart title={title} x={samples.times} series={series} time testId={testId} summary={summary} />;
}
