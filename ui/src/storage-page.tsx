import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { AccountLink, short } from './fields.js';
import { Media } from './media.js';
import { href } from './route.js';
import { Table } from './table.js';
import { SampledChart, useSamples } from './samples.js';

const OBJECTS = 24;

/** Storage providers, and the latest objects kept under deals (images shown). */
export function StoragePage() {
  const stored = useSamples(async () => {
    const status = await http.ompStorageStatus();
    return { 'bytes stored here': status.usedBytes };
  });
  const loaded = useLoad('storage', async () => {
    const [providers, objects] = await Promise.all([http.ompListProviders(), http.listObjects({ limit: OBJECTS })]);
    return { providers, objects: objects.objects };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="storage" />;
  const { providers, objects } = loaded.value;
  return (
    <>
      <h2>Storage providers</h2>
      {providers.length === 0 ? (
        <p>No storage provider is registered.</p>
      ) : (
        <Table
          columns={['Operator', 'Formats', 'Capacity', ['Bond (OGT)', 'wide'], ['Since block', 'wide']]}
          testId="storage-providers"
        >
          {providers.map((p) => (
            <tr key={p.operator}>
              <td>
                <AccountLink address={p.operator} />
              </td>
              <td>{p.supported_formats.join(', ')}</td>
              <td>{p.storage_capacity_gb} GB</td>
              <td class="wide">{p.bond_ogt}</td>
              <td class="wide">{p.registeredAt}</td>
            </tr>
          ))}
        </Table>
      )}
      <SampledChart title="Bytes this node stores, while this page is open" samples={stored} testId="chart-stored" />
      <h2>Latest objects</h2>
      {objects.length === 0 ? (
        <p>No object is kept under a deal yet.</p>
      ) : (
        <ul class="objects" data-testid="objects">
          {objects.map((object) => (
            <li key={object.cid}>
              <Media object={object} thumbnail />
              <a href={href.object(object.cid)} class="hash" title={object.cid}>
                {short(object.cid)}
              </a>
              <span>
                {object.format}, {object.size} bytes
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
