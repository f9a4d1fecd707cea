import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RpcCallStats } from './rpc-call-stats.js';
import { definePlugin } from '../../kernel/plugin.js';
import type {} from './gauges.js';

/** The exposition type Prometheus expects. */
const CONTENT_TYPE = 'text/plain; version=0.0.4';

export default definePlugin({
  name: 'metrics',
  version: '1.0.0',
  description:
    'Prometheus metrics at GET /metrics: RPC calls and latency, head height, peers, sync, gossip, consensus rounds, votes, commit latency and missed blocks, WebSocket connections, compute jobs, process',
  requires: ['chain-reader', 'sync-status'],
  init(ctx) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'svc_' });
    // Gauges named like counters, which Prometheus's linter refuses; the per-type gauges beside them carry the same counts.
    for (const name of [
      'svc_nodejs_active_handles_total',
      'svc_nodejs_active_requests_total',
      'svc_nodejs_active_resources_total',
    ])
      registry.removeSingleMetric(name);
    const stats = new RpcCallStats([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]);
    registry.registerMetric(
      stats.counter('svc_rpc_calls_total', 'JSON-RPC calls by method, outcome and transport') as never,
    );
    registry.registerMetric(stats.histogram('svc_rpc_duration_seconds', 'JSON-RPC call latency by method') as never);
    const head = new Gauge({ name: 'svc_chain_head_height', help: 'height of the head block', registers: [registry] });
    const blocks = new Counter({
      name: 'svc_chain_blocks_total',
      help: 'blocks committed since start',
      registers: [registry],
    });
    const connections = new Gauge({
      name: 'svc_ws_connections',
      help: 'open WebSocket connections',
      registers: [registry],
    });
    const chain = ctx.use('chain-reader');
    const sync = ctx.use('sync-status');
    head.set(chain.head.height);
    const peers = new Gauge({ name: 'svc_p2p_peers', help: 'connected peers', registers: [registry] });
    new Gauge({
      name: 'svc_sync_highest_block',
      help: 'highest block this node knows of: its head, or the best head a peer announced',
      registers: [registry],
      collect() {
        this.set(sync.highestKnown);
      },
    });
    const imported = new Counter({
      name: 'svc_p2p_blocks_imported_total',
      help: 'blocks from peers verified and committed, by how they came',
      labelNames: ['source'],
      registers: [registry],
    });
    const gossip = new Counter({
      name: 'svc_p2p_gossip_messages_total',
      help: 'gossip messages received (in) and published (out)',
      labelNames: ['direction'],
      registers: [registry],
    });
    ctx.events.on('p2p:peers', (event) => peers.set(event.peers));
    ctx.events.on('p2p:imported', (event) => imported.inc({ source: event.source }));
    ctx.events.on('p2p:gossip', (event) => gossip.inc({ direction: event.direction }));
    ctx.events.on('rpc:request', (request) => {
      for (const call of request.calls) stats.record(call, request.transport);
    });
    ctx.events.on('chain:block', (block) => {
      head.set(block.height);
      blocks.inc();
    });
    // Consensus, from a validator node's driver (nothing on other nodes), and the set's downtime from the chain.
    const rounds = new Counter({
      name: 'svc_consensus_rounds_total',
      help: 'consensus rounds this validator entered (one a height when nothing goes wrong)',
      registers: [registry],
    });
    const round = new Gauge({
      name: 'svc_consensus_round',
      help: 'the round this validator is in at its current height',
      registers: [registry],
    });
    const votes = new Counter({
      name: 'svc_consensus_votes_total',
      help: 'consensus votes this validator sent (out) and took in from peers (in), by type',
      labelNames: ['type', 'direction'],
      registers: [registry],
    });
    const commitLatency = new Histogram({
      name: 'svc_consensus_proposal_to_commit_seconds',
      help: 'from a proposal arriving at (or being made by) this validator to its block being committed here',
      labelNames: ['round'],
      // Fine between 1 and 2.5 s: a loaded network's slowest commits fall there, and one wide bucket made
      // every p99 read from it an interpolation.
      buckets: [
        0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 5, 10,
      ],
      registers: [registry],
    });
    ctx.events.on('consensus:round', (event) => {
      rounds.inc();
      round.set(event.round);
    });
    ctx.events.on('consensus:vote', (event) => votes.inc({ type: event.type, direction: event.direction }));
    ctx.events.on('consensus:committed', (event) =>
      commitLatency.observe({ round: event.round === 0 ? '0' : '1+' }, event.proposalToCommitMs / 1000),
    );
    new Gauge({
      name: 'svc_consensus_last_commit_age_seconds',
      help: 'seconds since the head block was made',
      registers: [registry],
      collect() {
        this.set(Math.max(0, Date.now() - chain.head.timestamp) / 1000);
      },
    });
    const runs = new Counter({
      name: 'svc_compute_jobs_run_total',
      help: 'jobs this node ran as a provider, by runtime and outcome (exit, out_of_gas, trap)',
      labelNames: ['runtime', 'outcome'],
      registers: [registry],
    });
    const runTime = new Histogram({
      name: 'svc_compute_job_duration_seconds',
      help: 'wall time of a job run on this node',
      labelNames: ['runtime'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
      registers: [registry],
    });
    const gas = new Counter({
      name: 'svc_compute_gas_used_total',
      help: 'gas of the jobs this node ran (rate() gives gas/s)',
      labelNames: ['runtime'],
      registers: [registry],
    });
    ctx.events.on('compute:jobRan', (event) => {
      runs.inc({ runtime: event.runtime, outcome: event.outcome });
      runTime.observe({ runtime: event.runtime }, event.seconds);
      gas.inc({ runtime: event.runtime }, Number(event.gasUsed));
    });
    const proofs = new Counter({
      name: 'svc_omp_proofs_total',
      help: "this node's storage challenges: passed (proof mined) or failed (a fault)",
      labelNames: ['result'],
      registers: [registry],
    });
    ctx.events.on('omp-storage:proof', (event) => proofs.inc({ result: event.result }));
    ctx.events.on('ws:open', (event) => connections.set(event.connections));
    ctx.events.on('ws:close', (event) => connections.set(event.connections));
    return registry;
  },
  // Every plugin's gauges, once every service exists: each reads its own state at a scrape.
  start(registry, ctx) {
    // The definition's service type is erased in the list; `gauges` is its own plugin's hook.
    for (const { definition, service } of ctx.plugins)
      for (const spec of definition.gauges?.(service() as never) ?? [])
        new Gauge({
          name: spec.name,
          help: spec.help,
          labelNames: [...(spec.labelNames ?? [])],
          registers: [registry],
          collect() {
            this.reset();
            spec.collect((value, labels) => (labels ? this.set(labels, value) : this.set(value)));
          },
        });
  },
  routes: [
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus text exposition',
      handler: async (c, registry) => c.body(await registry.metrics(), 200, { 'content-type': CONTENT_TYPE }),
    },
  ],
});
