import { http } from './node.js';
import { usePolled } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { AccountLink, Fields, short } from './fields.js';
import { Table } from './table.js';
import { SampledChart, useSamples } from './samples.js';

const REFRESH_MS = 2000;

/** `/health?verbose`: the node's readiness and what each plugin adds (a flat JSON object). */
async function health(): Promise<{ ok: boolean; details: Record<string, unknown> }> {
  const response = await fetch('/health?verbose', { headers: { accept: 'application/json' } });
  return { ok: response.ok, details: (await response.json()) as Record<string, unknown> };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** This node: who it is, its health, its sync, its peers; read again every 2 s. */
export function NodePage() {
  const samples = useSamples(async () => {
    const [{ details }, peers] = await Promise.all([health(), http.peers()]);
    return { 'pending transactions': Number(details.pendingTransactions ?? 0), peers: peers.length };
  });
  const loaded = usePolled(async () => {
    const [info, status, syncing, peers] = await Promise.all([http.nodeInfo(), health(), http.syncing(), http.peers()]);
    return { info, status, syncing, peers };
  }, REFRESH_MS);
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="the node" />;
  const { info, status, syncing, peers } = loaded.value;
  const { status: readiness, role: _shownAbove, ...details } = status.details;
  return (
    <>
      <h2>Node</h2>
      <Fields
        label="Node"
        rows={[
          ['Health', <span data-testid="node-health">{text(readiness)}</span>],
          [
            'Sync',
            syncing === false
              ? 'synced'
              : `block ${syncing.currentBlock} of ${syncing.highestBlock} (from ${syncing.startingBlock})`,
          ],
          ['Role', info.role],
          ['Network', `${info.network} (${info.chainId})`],
          ['Version', info.version],
          ['Operator', <AccountLink address={info.operator} full />],
          ['Peer id', <span class="hash">{info.peerId}</span>],
          ['Plugins', info.plugins.map((p) => p.name).join(', ')],
        ]}
      />
      <SampledChart title="Mempool and peers while this page is open" samples={samples} testId="chart-node" />
      <h3>Details</h3>
      <Fields
        label="Health details"
        rows={Object.entries(details).map(([name, value]) => [name, <span class="hash">{text(value)}</span>] as const)}
      />
      <h3>Peers ({peers.length})</h3>
      {peers.length === 0 ? (
        <p>No peer connected.</p>
      ) : (
        <Table columns={['Peer', 'Direction', 'Head', ['Address', 'wide']]} testId="peers">
          {peers.map((peer) => (
            <tr key={peer.peerId}>
              <td class="hash" title={peer.peerId}>
                {short(peer.peerId)}
              </td>
              <td>{peer.direction}</td>
              <td>{peer.head ? peer.head.height : '—'}</td>
              <td class="hash wide">{peer.addresses[0] ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
