import uPlot from 'uplot';
import { useEffect, useRef } from 'preact/hooks';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly color: string;
}

export interface ChartProps {
  readonly title: string;
  /** The x values: block heights, or unix seconds when `time` is set. */
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
  readonly time?: boolean;
  readonly testId: string;
  /** A sentence for those who cannot see the chart (screen readers), e.g. the latest values. */
  readonly summary: string;
}

const HEIGHT = 160;
/** Time ticks in whole seconds and up: samples come every few seconds, and a tick of a fraction of one reads as milliseconds. */
const TIME_TICKS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400];
const GRID = { stroke: 'rgba(127,127,127,0.2)' };

/**
 * A small live line chart (uPlot, bundled with the page: nothing is fetched from elsewhere). Redrawn
 * in place when its data changes, resized with its container.
 */
export function Chart({ title, x, series, time = false, testId, summary }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = (): uPlot.AlignedData => [x as number[], ...series.map((s) => s.values as (number | null)[])];

  useEffect(() => {
    const element = box.current!;
    const created = new uPlot(
      {
        width: Math.max(200, element.clientWidth),
        height: HEIGHT,
        scales: { x: { time } },
        legend: { show: true, live: false },
        cursor: { show: true, points: { show: false } },
        axes: [
          { stroke: 'currentColor', grid: GRID, ...(time ? { incrs: TIME_TICKS } : {}) },
          { stroke: 'currentColor', grid: GRID, size: 64 },
        ],
        series: [
          { label: time ? 'time' : 'block' },
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, points: { show: false } })),
        ],
      },
      data(),
      element,
    );
    plot.current = created;
    const resize = new ResizeObserver(() =>
      created.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      created.destroy();
      plot.current = undefined;
    };
  }, [series.length]);

  useEffect(() => {
    plot.current?.setData(data());
  }, [x, series]);

  return (
    <figure class="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${summary}`} />
    </figure>
  );
}
