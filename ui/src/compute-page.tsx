import { useState } from 'preact/hooks';
import { useLive } from './live.js';
import type { JobView } from '../../sdk/index.js';
import { http, ws } from './node.js';
import { describe, useLoad } from './load.js';
import { NotLoaded, Alert } from './not-loaded.js';
import { AccountLink, amount, short } from './fields.js';
import { href } from './route.js';
import { Table } from './table.js';
import { SampledChart, useSamples } from './samples.js';

const JOBS = 20;

/** Compute providers, and the latest jobs with their status kept live over the `jobs` subscription. */
export function ComputePage() {
  const providers = useLoad('compute providers', () => http.oonListProviders());
  const jobs = useSamples(async () => {
    const { jobs } = await http.listJobs({ limit: 500 });
    const count = (...statuses: string[]) => jobs.filter((job) => statuses.includes(job.status)).length;
    return { waiting: count('queued'), running: count('assigned', 'committed'), finalized: count('finalized') };
  });
  return (
    <>
      <h2>Compute providers</h2>
      {providers.state !== 'done' ? (
        <NotLoaded loaded={providers} what="the compute providers" />
      ) : providers.value.length === 0 ? (
        <p>No compute provider is registered.</p>
      ) : (
        <Table
          columns={['Operator', 'Runtimes', 'Job slots', ['Bond (OGT)', 'wide'], ['Since block', 'wide']]}
          testId="compute-providers"
        >
          {providers.value.map((p) => (
            <tr key={p.operator}>
              <td>
                <AccountLink address={p.operator} />
              </td>
              <td>{p.capabilities.join(', ')}</td>
              <td>{p.max_concurrent_jobs}</td>
              <td class="wide">{p.bond_ogt}</td>
              <td class="wide">{p.registeredAt}</td>
            </tr>
          ))}
        </Table>
      )}
      <SampledChart title="Jobs (of the latest 500) while this page is open" samples={jobs} testId="chart-jobs" />
      <h2>Latest jobs</h2>
      <LiveJobs />
    </>
  );
}

function LiveJobs() {
  const [jobs, setJobs] = useState<JobView[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useLive(
    async (live) => {
      // Subscribed first, so no status change between the listing and the subscription is missed.
      const events = await ws.subscribe<JobView>('jobs');
      live.onEnd(() => void events.unsubscribe());
      if (!live.active) return;
      events.on(
        (job) =>
          live.active &&
          setJobs((shown) => [job, ...(shown ?? []).filter((j) => j.jobId !== job.jobId)].slice(0, JOBS)),
      );
      const { jobs: latest } = await http.listJobs({ limit: JOBS });
      if (live.active)
        setJobs((shown) =>
          [...(shown ?? []), ...latest.filter((j) => !shown?.some((s) => s.jobId === j.jobId))].slice(0, JOBS),
        );
    },
    [],
    (failure) => setError(describe(failure)),
  );
  if (error) return <Alert>{error}</Alert>;
  if (!jobs) return <p>Loading the jobs…</p>;
  if (jobs.length === 0) return <p>No job yet.</p>;
  return (
    <Table
      columns={['Job', 'Status', 'Runtime', ['Requester', 'wide'], ['Gas used', 'wide'], ['Fee (OMC)', 'wide']]}
      testId="jobs"
    >
      {jobs.map((job) => (
        <tr key={job.jobId}>
          <td>
            <a href={href.job(job.jobId)} class="hash" title={job.jobId}>
              {short(job.jobId)}
            </a>
          </td>
          <td data-testid="job-status">{job.status}</td>
          <td>{job.runtime}</td>
          <td class="wide">
            <AccountLink address={job.requester} />
          </td>
          <td class="wide">{job.gasUsed ?? '—'}</td>
          <td class="wide">{job.fee === null ? '—' : amount(job.fee)}</td>
        </tr>
      ))}
    </Table>
  );
}
