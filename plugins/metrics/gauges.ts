import type { TSchema } from 'typebox';

/**
 * What a plugin adds to the contract to show its state in /metrics: gauges the metrics plugin reads
 * at each scrape, from the plugin's own service. The metrics plugin knows no domain plugin; a plugin
 * whose numbers belong in /metrics declares them, and they appear on a node that loads metrics.
 */
declare module '../../kernel/plugin.js' {
  // Type parameters as in the kernel's declaration: the hook sees the plugin's service.
  interface PluginDefinition<C extends TSchema, Svc> {
    /** Gauges of this plugin's state, read at each scrape of /metrics (when the metrics plugin is loaded). */
    gauges?(service: Svc): readonly GaugeSpec[];
  }
}

export interface GaugeSpec {
  /** A Prometheus name: `svc_<plugin>_<what>`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  /** Sets the gauge's values now; label sets not set in a scrape are dropped from it (a validator that left the set). */
  collect(set: (value: number, labels?: Readonly<Record<string, string>>) => void): void;
}
