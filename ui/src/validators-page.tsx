import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { AccountLink, Fields, short } from './fields.js';
import { Table } from './table.js';

/** The validator set in force, and where consensus stands on this node. */
export function ValidatorsPage() {
  const loaded = useLoad('validators', async () => {
    const [set, consensus] = await Promise.all([http.validators(), http.consensusState()]);
    return { set, consensus };
  });
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what="the validators" />;
  const { set, consensus } = loaded.value;
  const commit = consensus.lastCommit;
  return (
    <>
      <h2>Validators</h2>
      <Fields
        label="Validator set"
        rows={[
          ['Validators', set.validators.length],
          ['Total power', `${set.totalPower} OGT`],
          ['Next proposer', <AccountLink address={set.nextProposer} />],
          ['Set changes at', `block ${set.nextChangeAt} (epochs of ${set.epochBlocks} blocks)`],
          [
            'Consensus here',
            consensus.round === undefined
              ? consensus.mode
              : `${consensus.mode}, height ${consensus.height}, round ${consensus.round}, ${consensus.step}`,
          ],
          [
            'Last commit',
            commit
              ? `block ${commit.height}, round ${commit.round}: ${commit.signers} signer(s), ${commit.signedPower} of ${commit.totalPower} OGT, ${(commit.ageMs / 1000).toFixed(1)} s ago`
              : 'none yet',
          ],
        ]}
      />
      <Table
        columns={['Validator', 'Name', 'Power (OGT)', ['Proposer priority', 'wide'], ['Consensus key', 'wide']]}
        testId="validators"
      >
        {set.validators.map((v) => (
          <tr key={v.operator}>
            <td>
              <AccountLink address={v.operator} />
            </td>
            <td>{v.moniker ?? (v.genesis ? 'genesis validator' : '—')}</td>
            <td>{v.power}</td>
            <td class="wide">{v.proposerPriority}</td>
            <td class="hash wide" title={v.consensusKey}>
              {short(v.consensusKey)}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
