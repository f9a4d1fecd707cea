import { useState } from 'preact/hooks';
import { useLive } from './live.js';
import type { JobView } from '../../sdk/index.js';
import { http, ws } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { AccountLink, amount, Fields, Hash } from './fields.js';
import { href } from './route.js';
import { ProtectedLink } from './protected.js';

/** Bytes as text when they read as text, else as hex. */
function shown(hex: string): string {
  const bytes = Uint8Array.from(hex.slice(2).match(/../g) ?? [], (pair) => parseInt(pair, 16));
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // eslint-disable-next-line no-control-regex
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to spot control characters, which mark binary output.
  return /[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text) ? hex : text;
}

/** How the chain's call back to a contract went, or that it waits for the job to be over. */
function describeCallback(callback: NonNullable<JobView['callback']>): string {
  const call = `${callback.selector} with up to ${callback.gasLimit} gas`;
  if (callback.status === null) return `${call}: made once the job is over`;
  const how =
    callback.status === 'success'
      ? 'succeeded'
      : callback.status === 'no_code'
        ? "not made: no code at the contract's address"
        : `${callback.status.replace(/_/g, ' ')}${callback.revert ? ` (${callback.revert})` : ''}`;
  return `${call}: ${how}, ${callback.gasUsed} gas, in block ${callback.calledAt}`;
}

/** A compute job: its record, its status kept live until it settles, its output. */
export function JobPage({ id }: { id: string }) {
  const loaded = useLoad(`job ${id}`, () => http.getJob(id));
  const [live, setLive] = useState<JobView | undefined>();
  useLive(
    async (kept) => {
      setLive(undefined);
      if (loaded.state !== 'done' || ['finalized', 'failed', 'expired'].includes(loaded.value.status)) return;
      const events = await ws.subscribe<JobView>('jobs', { jobId: id });
      kept.onEnd(() => void events.unsubscribe());
      if (!kept.active) return;
      events.on((job) => setLive(job));
      // A change between the first read and the subscription: read once more.
      const job = await http.getJob(id);
      if (kept.active) setLive((known) => known ?? job);
    },
    [loaded],
  );
  if (loaded.state !== 'done') return <NotLoaded loaded={loaded} what={`job ${id}`} />;
  const job = live ?? loaded.value;
  return (
    <>
      <h2>Job</h2>
      <Fields
        label="Job"
        rows={[
          ['Job id', <Hash value={job.jobId} />],
          ['Status', <span data-testid="job-status">{job.status}</span>],
          ...(job.reason ? ([['Why', job.reason]] as const) : []),
          ['Runtime', job.runtime],
          [
            'Code',
            job.codeCid ? (
              <a href={href.object(job.codeCid)} class="hash">
                {job.codeCid}
              </a>
            ) : (
              'inline'
            ),
          ],
          [job.callback ? 'Requester (a contract)' : 'Requester', <AccountLink address={job.requester} full />],
          ...(job.callback
            ? ([
                ['Callback', <span data-testid="job-callback">{describeCallback(job.callback)}</span>],
                ...(job.callback.hash
                  ? ([
                      [
                        'Callback transaction',
                        <a href={href.tx(job.callback.hash)} data-testid="job-callback-tx">
                          <Hash value={job.callback.hash} />
                        </a>,
                      ],
                    ] as const)
                  : []),
              ] as const)
            : []),
          [
            'Providers',
            job.providers.length === 0 ? 'none yet' : job.providers.map((p) => <AccountLink key={p} address={p} />),
          ],
          ['Submitted in block', <a href={href.block(job.submittedAt)}>{job.submittedAt}</a>],
          [
            'Assigned in block',
            job.assignedAt === null ? '—' : <a href={href.block(job.assignedAt)}>{job.assignedAt}</a>,
          ],
          [
            'Settled in block',
            job.finalizedAt === null ? '—' : <a href={href.block(job.finalizedAt)}>{job.finalizedAt}</a>,
          ],
          ['Gas', `${job.gasUsed ?? '—'} used of ${job.gasLimit} at ${job.gasPrice} per gas`],
          ['Fee', job.fee === null ? '—' : `${amount(job.fee)} OMC`],
          ['Exit', job.exit ?? '—'],
          ['Settled by', job.settledBy ?? '—'],
        ]}
      />
      {job.outputSize !== null && (
        <>
          <h3>Output ({job.outputSize} bytes)</h3>
          {job.output !== null && (
            <pre class="payload" data-testid="job-output">
              {shown(job.output)}
            </pre>
          )}
          <p>
            <ProtectedLink path={`/oon/jobs/${job.jobId}/output`}>Download the output</ProtectedLink> ·{' '}
            <ProtectedLink path={`/oon/jobs/${job.jobId}/log`}>the log</ProtectedLink> (from the node of a provider that
            ran it)
          </p>
        </>
      )}
    </>
  );
}
