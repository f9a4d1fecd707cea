import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { AccountLink, amount, Fields, Hash, short } from './fields.js';
import { Media } from './media.js';
import { Table } from './table.js';

/** A stored object: shown (image or video, from this node's `/ipfs/<cid>`), and the deals that keep it. */
export function ObjectPage({ cid }: { cid: string }) {
  const loaded = useLoad(`object ${cid}`, async () => {
    const object = await http.getObject(cid);
    return { object, deals: await Promise.all(object.deals.map((id) => http.getDeal(id))) };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="object" />;
  const { object, deals } = loaded.value;
  return (
    <>
      <h2>Object</h2>
      <Media object={object} />
      <Fields
        label="Object"
        rows={[
          ['CID', <Hash value={object.cid} />],
          ['Media type', object.mediaType],
          ['Format', object.format],
          ['Size', `${object.size} bytes`],
          [
            'Kept by',
            object.providers.length === 0
              ? 'no provider'
              : object.providers.map((p) => <AccountLink key={p} address={p} />),
          ],
        ]}
      />
      <h3>Deals ({deals.length})</h3>
      <Table columns={['Deal', 'Status', ['Client', 'wide'], 'Blocks', ['Paid (OMC)', 'wide']]} testId="object-deals">
        {deals.map((deal) => (
          <tr key={deal.dealId}>
            <td class="hash" title={deal.dealId}>
              {short(deal.dealId)}
            </td>
            <td>{deal.status}</td>
            <td class="wide">
              <AccountLink address={deal.client} />
            </td>
            <td>
              {deal.startBlock === null
                ? `${deal.durationBlocks} from acceptance`
                : `${deal.startBlock}–${deal.endBlock}`}
            </td>
            <td class="wide">
              {amount(deal.paid)} of {amount(BigInt(deal.price) * BigInt(deal.replicas))}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
