import { readFileSync, writeFileSync } from 'node:fs';
import type { CAC } from 'cac';
import {
  DOMAIN_ERRORS,
  RpcError,
  type SvcClient,
  type JobCode,
  type JobRequest,
  type JobRun,
  type JobView,
  type KeyPair,
} from '../sdk/index.js';
import { integerText, optionText, UsageError } from './cli-args.js';
import { waitingFor } from './wait-for.js';

/**
 * On a terminal, each state a waited-for job reaches, as it reaches it (queued → assigned → committed
 * → finalized) with the seconds since the wait began; nothing when stderr is a pipe or a file.
 */
function progress(): ((job: JobView) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  const started = Date.now();
  return (job) =>
    process.stderr.write(
      `  ${job.status}${job.reason ? ` (${job.reason})` : ''} after ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
}

export interface JobCommandContext<O> {
  readonly client: (options: O) => SvcClient;
  readonly urlOf: (options: O) => string;
  /** ` --url <url>` as typed (empty for the default): what a follow-up command needs to reach the same node. */
  readonly urlFlag: (options: O) => string;
  readonly signer: (options: O) => KeyPair;
  readonly print: (options: O, value: unknown, human: () => string) => void;
}

type JobOptions = {
  runtime?: unknown;
  code?: unknown;
  codeCid?: unknown;
  input?: unknown;
  args?: unknown;
  arg?: unknown;
  gasLimit?: unknown;
  gasPrice?: unknown;
  replicas?: unknown;
  wait?: boolean;
  log?: boolean;
  out?: unknown;
  requester?: unknown;
  provider?: unknown;
  status?: unknown;
  limit?: unknown;
  keyFile?: unknown;
  devAccount?: unknown;
};

function readFile(path: string, flag: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(
      `${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** The job's code: a .wasm file's bytes; for EVM, a file of 0x hex (what compilers print) or raw bytecode. */
/** `--code <file>` (inline), or `--code-cid <cid>` (a stored object with an active deal): one of the two. */
function codeOf(options: JobOptions, runtime: 'wasm' | 'evm'): JobCode {
  const path = optionText(options.code, '--code');
  const cid = optionText(options.codeCid, '--code-cid');
  if ((path === undefined) === (cid === undefined))
    throw new UsageError(
      'give one of --code <file> (a WASI .wasm module, or EVM runtime bytecode) and --code-cid <cid> (a stored object with an active deal: `svc omp put`)',
    );
  if (cid !== undefined) return { codeCid: cid };
  const bytes = readFile(path!, '--code');
  if (runtime === 'evm') {
    const text = Buffer.from(bytes).toString('utf8').trim();
    if (/^(0x)?([0-9a-fA-F]{2})+$/.test(text))
      return { code: Uint8Array.from(Buffer.from(text.replace(/^0x/, ''), 'hex')) };
  }
  return { code: bytes };
}

/** `--input text`, `--input @file`, or `--input 0x…` (bytes). */
function inputOf(options: JobOptions): Uint8Array {
  const text = optionText(options.input, '--input');
  if (text === undefined) return new Uint8Array(0);
  if (text.startsWith('@')) return readFile(text.slice(1), '--input');
  if (/^0x([0-9a-fA-F]{2})*$/.test(text)) return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
  return new TextEncoder().encode(text);
}

function wholeNumber(value: unknown, flag: string, fallback?: bigint): bigint {
  const text = optionText(value, flag);
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw new UsageError(`${flag} <n> is required`);
  }
  if (!/^(0|[1-9]\d*)$/.test(text)) throw new UsageError(`${flag}: expected a whole number, got "${text}"`);
  return BigInt(text);
}

function describeJob(job: JobView): string {
  const lines = [
    `job ${job.jobId}: ${job.status}${job.reason ? ` (${job.reason})` : ''}`,
    `runtime   ${job.runtime}, ${job.replicas} replica(s)`,
    `providers ${job.providers.join(', ') || '-'}`,
  ];
  if (job.exit)
    lines.push(
      `exit      ${job.exit}`,
      `gas       ${job.gasUsed} of ${job.gasLimit}, fee ${job.fee ?? 0} OMC base units`,
      `output    ${job.outputSize} bytes, sha256 ${job.outputHash}`,
    );
  else lines.push(`gas limit ${job.gasLimit} at ${job.gasPrice} OMC base units per gas`);
  return lines.join('\n');
}

/**
 * A job's args after the program name, as typed: each `--arg` exactly (repeated for more), or
 * `--args` as a JSON array of strings, or comma-separated (then no arg can hold a comma).
 */
export function jobArgs(options: { arg?: unknown; args?: unknown }): string[] {
  if (options.arg !== undefined && options.args !== undefined)
    throw new UsageError('--arg and --args: give the args one way (repeated --arg, or --args)');
  if (options.arg !== undefined) {
    const values = Array.isArray(options.arg) ? options.arg : [options.arg];
    if (values.some((value) => typeof value !== 'string')) throw new UsageError('--arg: needs a value');
    return values as string[];
  }
  const text = optionText(options.args, '--args');
  if (text === undefined) return [];
  if (!text.trimStart().startsWith('[')) return text.split(',');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`--args: "${text}" starts like a JSON array but is not one`);
  }
  if (!Array.isArray(parsed) || parsed.some((value) => typeof value !== 'string'))
    throw new UsageError(`--args: a JSON array of strings, not ${text}`);
  return parsed as string[];
}

/** `svc job submit|status|output|list|estimate`. */
export function addJobCommand<O extends object>(cli: CAC, ctx: JobCommandContext<O & JobOptions>): void {
  cli
    .command(
      'job <action> [jobId]',
      'compute jobs: `job submit`, `job status <id>`, `job output <id>`, `job list`, `job estimate`',
    )
    .option('--runtime <runtime>', 'submit/estimate: wasm or evm', { default: 'wasm' })
    .option('--code <file>', 'submit/estimate: the WASI .wasm module, or EVM runtime bytecode (binary or 0x hex)')
    .option(
      '--code-cid <cid>',
      'submit/estimate: instead of --code, the CID of a stored object with an active deal (the module, or the bytecode as hex text)',
    )
    .option('--input <data>', 'submit/estimate: stdin (wasm) or calldata (evm): text, 0x hex, or @file')
    .option('--arg <value>', 'submit/estimate: one WASM arg after the program name, exactly as typed (repeat for more)')
    .option(
      '--args <list>',
      'submit/estimate: the WASM args after the program name: a JSON array of strings (["a,b", "c"]), or comma-separated when none has a comma',
    )
    .option('--gas-limit <n>', 'submit/estimate: most gas the job may use')
    .option('--gas-price <units>', 'submit: OMC base units per gas (default 1)')
    .option('--replicas <n>', 'submit: 1, or 2 to compare two providers (default 1)')
    .option('--key-file <file>', 'submit: requester key file')
    .option('--dev-account <index>', 'submit: sign with a devnet dev account (0-9)')
    .option('--wait', 'submit/status: wait until the job is finalized, failed or expired')
    .option('--log', "output: the job's log (stderr) instead of its output")
    .option('--out <file>', 'output: write the bytes to a file instead of stdout')
    .option('--requester <address>', 'list: jobs of this requester')
    .option('--provider <address>', 'list: jobs of this provider')
    .option('--status <status>', 'list: only jobs in this state')
    .option('--limit <n>', 'list: at most this many (default 20)')
    .action(async (action: string, jobId: string | undefined, options: O & JobOptions) => {
      const c = ctx.client(options);
      const runtimeOf = (): 'wasm' | 'evm' => {
        const text = optionText(options.runtime, '--runtime');
        if (text !== 'wasm' && text !== 'evm')
          throw new UsageError(`--runtime: expected one of wasm, evm, got "${text ?? ''}"`);
        return text;
      };
      const request = (): JobRun => {
        const runtime = runtimeOf();
        return {
          runtime,
          ...codeOf(options, runtime),
          input: inputOf(options),
          args: ['job', ...jobArgs(options)],
          gasLimit: wholeNumber(options.gasLimit, '--gas-limit'),
        };
      };
      const needId = (): string => {
        if (!jobId || !/^0x[0-9a-fA-F]{64}$/.test(String(jobId)))
          throw new UsageError(`job ${action} <jobId>: a job id is 0x and 64 hex characters`);
        return String(jobId);
      };
      if (action === 'submit') {
        const job: JobRequest = {
          ...request(),
          gasPrice: wholeNumber(options.gasPrice, '--gas-price', 1n),
          replicas: integerText(options.replicas ?? '1', '--replicas', 1, 2) as 1 | 2,
        };
        const { jobId: id } = await c.submitJob(ctx.signer(options), job);
        // Just the id, so scripts can take it: JOB=$(svc job submit ...)
        if (!options.wait) return ctx.print(options, { jobId: id }, () => id);
        const done = await waitingFor(
          { noun: 'job', id, followUp: `svc job status ${id} --wait${ctx.urlFlag(options)}` },
          () => c.waitForJob(id, { timeoutMs: 600_000, onStatus: progress() }),
        );
        ctx.print(options, done, () => describeJob(done));
        if (done.status !== 'finalized') process.exitCode = 1;
        return;
      }
      if (action === 'status') {
        const id = needId();
        const job = options.wait
          ? await waitingFor({ noun: 'job', id, followUp: `svc job status ${id} --wait${ctx.urlFlag(options)}` }, () =>
              c.waitForJob(id, { timeoutMs: 600_000, onStatus: progress() }),
            )
          : await c.getJob(id);
        return ctx.print(options, job, () => describeJob(job));
      }
      if (action === 'estimate') {
        const estimate = await c.estimateJob(request());
        return ctx.print(
          options,
          estimate,
          () => `${estimate.exit}, ${estimate.gasUsed} gas, ${estimate.outputSize} bytes of output`,
        );
      }
      if (action === 'list') {
        const limit = options.limit === undefined ? 20 : integerText(options.limit, '--limit', 1, 500);
        const filter = {
          limit,
          ...(options.requester !== undefined ? { requester: String(options.requester) } : {}),
          ...(options.provider !== undefined ? { provider: String(options.provider) } : {}),
          ...(options.status !== undefined ? { status: String(options.status) as JobView['status'] } : {}),
        };
        const { jobs } = await c.listJobs(filter);
        return ctx.print(options, jobs, () =>
          jobs.length === 0
            ? 'no jobs'
            : jobs.map((j) => `${j.jobId}  ${j.status.padEnd(9)}  ${j.runtime}  ${j.exit ?? ''}`).join('\n'),
        );
      }
      if (action === 'output') {
        const which = options.log ? 'log' : 'output';
        const response = await fetch(`${ctx.urlOf(options).replace(/\/$/, '')}/oon/jobs/${needId()}/${which}`);
        if (!response.ok) {
          const body = (await response.json().catch(() => ({}))) as {
            error?: string;
            message?: string;
            providers?: string[];
          };
          throw new RpcError(DOMAIN_ERRORS.not_found.code, body.error ?? 'not_found', {
            reason: `${body.message ?? `HTTP ${response.status}`}${body.providers?.length ? ` (providers: ${body.providers.join(', ')})` : ''}`,
          });
        }
        const bytes = new Uint8Array(await response.arrayBuffer());
        const out = optionText(options.out, '--out');
        if (out) {
          writeFileSync(out, bytes);
          return ctx.print(options, { file: out, bytes: bytes.length }, () => `wrote ${bytes.length} bytes to ${out}`);
        }
        process.stdout.write(bytes);
        return;
      }
      throw new UsageError(`unknown job action "${action}" (expected one of submit, status, output, list, estimate)`);
    });
}
