import Type from 'typebox';
import { param, type MethodFactory, type RpcMethod } from '../../kernel/plugin.js';
import { DEV_JOB_KIND, type DevJobAction } from '../oon/jobs/dev-controls.js';
import { DEV_DEAL_KIND, type DevDealAction } from '../omp/deals/dev-controls.js';
import type { DevControls } from './index.js';

const Id = (what: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: what });
const Output = Type.String({
  pattern: '^0x([0-9a-fA-F]{2})*$',
  description: 'the output the job settles with (what its callback receives), hex',
});
const Hash = Type.String({
  pattern: '^0x[0-9a-f]{64}$',
  description: 'the hash of the dev-mode transaction that did it (mined before the answer)',
});
const ERRORS = ['dev_mode_off', 'not_found', 'invalid_params'] as const;

/**
 * Dev mode's controls of compute jobs and storage deals, which no other dev chain has: a contract's
 * tests reach a job's and a deal's every outcome — and the callback and slashing each one gets — in
 * a block, without waiting out windows or breaking a provider. Each is a dev-mode transaction of the
 * owning plugin's kind (`oon.dev`, `omp.dev`), mined before the method answers.
 */
export function jobAndDealMethods(method: MethodFactory<DevControls>): RpcMethod[] {
  const job = async (service: DevControls, payload: DevJobAction): Promise<string> =>
    (await service.submitDev(DEV_JOB_KIND, [{ ...payload, jobId: payload.jobId.toLowerCase() }]))[0]!;
  const deal = async (service: DevControls, payload: DevDealAction): Promise<string> =>
    (await service.submitDev(DEV_DEAL_KIND, [{ ...payload, dealId: payload.dealId.toLowerCase() }]))[0]!;
  return [
    method({
      name: 'svc_devSettleJob',
      summary:
        'Dev mode: finalizes a job that has not settled now, with the given output (exit 0; no provider is paid, the escrow goes back to the requester); a contract is called back at the end of that block.',
      params: [param('jobId', Id('the job')), param('output', Output)],
      result: Hash,
      errors: [...ERRORS],
      handler: ([jobId, output], { service }) =>
        job(service, { jobId, action: 'settle', output: output.toLowerCase() }),
    }),
    method({
      name: 'svc_devFailJob',
      summary:
        'Dev mode: fails a job that has not settled now, as when its providers ran out of attempts: refunded, and a contract called back with status failed.',
      params: [param('jobId', Id('the job'))],
      result: Hash,
      errors: [...ERRORS],
      handler: ([jobId], { service }) => job(service, { jobId, action: 'fail' }),
    }),
    method({
      name: 'svc_devExpireJob',
      summary:
        'Dev mode: expires a job that has not settled now, as when no provider took it in its queue window: refunded, and a contract called back with status expired.',
      params: [param('jobId', Id('the job'))],
      result: Hash,
      errors: [...ERRORS],
      handler: ([jobId], { service }) => job(service, { jobId, action: 'expire' }),
    }),
    method({
      name: 'svc_devMisreportJob',
      summary:
        'Dev mode: the provider of an assigned or committed job reports a wrong result; the chain re-executes the job as it settles a dispute: the provider loses 10% of its compute bond to the requester, and the job settles with the true result (nobody paid).',
      params: [param('jobId', Id('the job'))],
      result: Hash,
      errors: [...ERRORS],
      handler: ([jobId], { service }) => job(service, { jobId, action: 'lie' }),
    }),
    method({
      name: 'svc_devMissProof',
      summary:
        "Dev mode: each replica of an active deal that is not faulty misses its proof now, as at a period's end with its challenge unanswered: the provider loses 1% of its storage bond to the client, and its third fault makes the replica faulty.",
      params: [param('dealId', Id('the deal'))],
      result: Hash,
      errors: [...ERRORS],
      handler: ([dealId], { service }) => deal(service, { dealId, action: 'missProof' }),
    }),
    method({
      name: 'svc_devEndDeal',
      summary:
        "Dev mode: an active deal's term ends now: closed, what is left in escrow back to the client, its providers' room freed.",
      params: [param('dealId', Id('the deal'))],
      result: Hash,
      errors: [...ERRORS],
      handler: ([dealId], { service }) => deal(service, { dealId, action: 'end' }),
    }),
  ];
}
