import { readFileSync } from 'node:fs';
import Type, { type Static } from 'typebox';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { checkConfig, ConfigError } from '../../kernel/config/errors.js';
import { literalUnion } from '../../chain/schemas.js';

const Weight = (description: string) => Type.Integer({ minimum: 0, maximum: 1000, default: 0, description });

export const PERTURBATIONS = ['kill', 'terminate', 'pause', 'restart', 'cut', 'link'] as const;
export type PerturbationKind = (typeof PERTURBATIONS)[number];
/** What a run on loopback draws from by default; `link` (a host's link cut) needs `hosts`. */
const LOOPBACK_PERTURBATIONS: PerturbationKind[] = ['kill', 'terminate', 'pause', 'restart', 'cut'];

/**
 * What an end-to-end run starts, does and perturbs. Every number a run draws (which operation, which
 * node, which perturbation, when) comes from `seed`, so a run is reproducible up to the machine's
 * timing.
 */
export const ManifestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, default: 'e2e', description: 'names the run in its summary and its directory' }),
    seed: Type.Integer({ minimum: 0, default: 1, description: 'the seed of every random choice (--seed)' }),
    seconds: Type.Number({
      minimum: 1,
      maximum: 86_400,
      default: 60,
      description: 'how long the workload and the perturbations run (--minutes sets it in minutes)',
    }),
    blockTime: Type.Integer({ minimum: 50, maximum: 10_000, default: 300, description: 'ms between blocks' }),
    hosts: Type.Boolean({
      default: false,
      description:
        'each node on a test host of its own (a network namespace with its own address on a bridge the runner makes; needs root), the network made by `svc-node init`; else every node on 127.0.0.1',
    }),
    validators: Type.Object(
      {
        count: Type.Integer({
          minimum: 1,
          maximum: 10,
          default: 4,
          description:
            'validator nodes: the genesis validator and count - 1 that stake by transaction (with hosts: all in the genesis)',
        }),
        stake: Type.Integer({ minimum: 15, maximum: 28, default: 20, description: 'OGT each staking validator bonds' }),
      },
      { additionalProperties: false, default: {} },
    ),
    followers: Type.Array(
      Type.Object(
        {
          compute: Type.Boolean({
            default: false,
            description: 'registers as a compute provider (wasm) and runs jobs',
          }),
          storage: Type.Boolean({
            default: false,
            description: 'registers as a storage provider and keeps objects under deals',
          }),
          archive: Type.Boolean({ default: false, description: '--receipt-archive true' }),
        },
        { additionalProperties: false },
      ),
      { default: [{ compute: true, storage: true, archive: true }], maxItems: 10, description: 'non-validator nodes' },
    ),
    workload: Type.Object(
      {
        accounts: Type.Integer({
          minimum: 2,
          maximum: 200,
          default: 12,
          description: 'accounts the clients sign with, funded from dev accounts at the start',
        }),
        perSecond: Type.Number({
          minimum: 0.1,
          maximum: 500,
          default: 8,
          description: 'operations per second, all clients together',
        }),
        mix: Type.Object(
          {
            transfer: Weight('a valid transfer to another account'),
            badNonce: Weight('a transfer with a nonce already used or too far ahead (refused)'),
            insufficientFunds: Weight('a transfer of more than the account holds (refused)'),
            faucet: Weight('a faucet request for an account, sometimes within its cooldown'),
            duplicate: Weight('one signed transfer sent to two nodes at once'),
            job: Weight('a small WASI job (needs a compute follower)'),
            deal: Weight('an upload and a storage deal (needs a storage follower)'),
            contract: Weight(
              'in the EVM: a deploy of the example ERC-20, or a token transfer that may revert (native, or an Ethereum transaction for the first ten clients)',
            ),
          },
          {
            additionalProperties: false,
            default: {
              transfer: 10,
              badNonce: 1,
              insufficientFunds: 1,
              faucet: 2,
              duplicate: 2,
              job: 2,
              deal: 1,
              contract: 2,
            },
          },
        ),
        faucetCooldownSeconds: Type.Integer({
          minimum: 1,
          maximum: 3600,
          default: 5,
          description: "the nodes' faucet cooldown per address",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    perturbations: Type.Object(
      {
        kinds: Type.Array(literalUnion(PERTURBATIONS), {
          default: LOOPBACK_PERTURBATIONS,
          description: 'which perturbations to draw from; [] for none; link needs hosts',
        }),
        everySeconds: Type.Number({
          minimum: 1,
          maximum: 3600,
          default: 6,
          description: 'mean time between perturbations (one at a time)',
        }),
        maxSeconds: Type.Number({
          minimum: 0.5,
          maximum: 600,
          default: 3,
          description: 'longest a node stays down, paused or cut',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);
export type Manifest = Static<typeof ManifestSchema>;

/** A manifest from a JSON (with comments) file, or the defaults; errors name the bad key. */
export function loadManifest(file: string | undefined, overrides: { seed?: number; seconds?: number } = {}): Manifest {
  let raw: Record<string, unknown> = {};
  if (file !== undefined) {
    const errors: ParseError[] = [];
    raw = parseJsonc(readFileSync(file, 'utf8'), errors, { allowTrailingComma: true }) as Record<string, unknown>;
    if (errors.length > 0)
      throw new ConfigError(
        `${file}: not JSON: ${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`,
      );
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ConfigError(`${file}: a manifest is a JSON object`);
  }
  const manifest = checkConfig<Manifest>(ManifestSchema, { ...raw, ...overrides }, '', new Map(), 'manifest key');
  const followers = manifest.followers;
  if (manifest.workload.mix.job > 0 && !followers.some((f) => f.compute))
    throw new ConfigError('manifest key "workload.mix.job": jobs need a follower with "compute": true');
  if (manifest.workload.mix.deal > 0 && !followers.some((f) => f.storage))
    throw new ConfigError('manifest key "workload.mix.deal": deals need a follower with "storage": true');
  if (Object.values(manifest.workload.mix).every((weight) => weight === 0))
    throw new ConfigError('manifest key "workload.mix": every weight is 0: nothing to do');
  if ((manifest.perturbations.kinds as readonly string[]).includes('link') && !manifest.hosts)
    throw new ConfigError('manifest key "perturbations.kinds": link cuts a test host\'s link: it needs "hosts": true');
  return manifest;
}
