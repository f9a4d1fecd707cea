import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Replays a Dockerfile's stages without an image builder: each stage is a directory standing for its
 * root; WORKDIR, ENV, COPY (from the build context, filtered by the Dockerfile's .dockerignore, or
 * from an earlier stage) and RUN are carried out in order with a Node of the base image's line (`FROM
 * node:24-…`: scripts/node-line.sh finds or installs it) first on the PATH. RUN steps that set up the
 * system (users, groups) are not replayed: they are listed in `skipped`. Everything else a RUN does
 * happens in its stage's WORKDIR.
 */

export interface ReplayedStage {
  readonly name: string | undefined;
  readonly image: string;
  /** The directory standing for the stage's `/`. */
  readonly root: string;
  /** A Node binary of the base image's line: what its RUN steps and its ENTRYPOINT run on. */
  readonly node: string;
  workdir: string;
  readonly env: Record<string, string>;
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
  healthcheck?: string[];
  readonly skipped: string[];
}

/** RUN commands this replay leaves out: they change the machine, not the stage's files. */
const SYSTEM_SETUP = /^(groupadd|useradd|addgroup|adduser|apt-get|chown)\b/;

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({ op: line.split(/\s+/, 1)[0]!.toUpperCase(), args: line.slice(line.search(/\s/) + 1).trim() }));
}

/** A .dockerignore's patterns, as paths from the context's root (what these files use: plain paths). */
function ignored(ignoreFile: string): (path: string) => boolean {
  const patterns = existsSync(ignoreFile)
    ? readFileSync(ignoreFile, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#'))
    : [];
  for (const pattern of patterns)
    if (/[*?[!]/.test(pattern)) throw new Error(`${ignoreFile}: the replay reads plain paths only, not "${pattern}"`);
  return (path) => patterns.some((pattern) => path === pattern || path.startsWith(`${pattern}/`));
}

const NODE_LINE = fileURLToPath(new URL('../../scripts/node-line.sh', import.meta.url));

/** The Node binary of an official `node:<line>-…` image's line. */
function nodeOf(image: string): string {
  const line = /^node:(\d+)\b/.exec(image)?.[1];
  if (!line) throw new Error(`FROM ${image}: the replay runs official node:<line> images only`);
  return execFileSync(NODE_LINE, [line], { encoding: 'utf8' }).trim();
}

const inRoot = (stage: ReplayedStage, path: string): string => join(stage.root, posix.resolve(stage.workdir, path));

/** `["a", "b"]` exec form, as ENTRYPOINT, CMD and HEALTHCHECK's CMD take it. */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
    throw new Error(`not an exec-form array: ${args}`);
  return parsed as string[];
}

/** Replays `dockerfile` with `context` as its build context into `out`; the stages, last one last. */
export function replayDockerfile(
  dockerfile: string,
  context: string,
  out: string,
  log: (line: string) => void = () => {},
): ReplayedStage[] {
  const stages: ReplayedStage[] = [];
  const skip = ignored(`${dockerfile}.dockerignore`);
  for (const { op, args } of instructions(readFileSync(dockerfile, 'utf8'))) {
    const stage = stages.at(-1);
    if (op === 'FROM') {
      const [image, as, name] = args.split(/\s+/);
      const root = join(out, `stage${stages.length}`);
      mkdirSync(root, { recursive: true });
      stages.push({
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        image: image!,
        root,
        node: nodeOf(image!),
        workdir: '/',
        env: {},
        skipped: [],
      });
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    if (op === 'WORKDIR') {
      stage.workdir = posix.resolve(stage.workdir, args);
      mkdirSync(inRoot(stage, '.'), { recursive: true });
    } else if (op === 'ENV') {
      for (const pair of args.split(/\s+/)) {
        const [key, ...value] = pair.split('=');
        stage.env[key!] = value.join('=');
      }
    } else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0]!.startsWith('--from=')
        ? stages.find((s) => s.name === parts.shift()!.slice('--from='.length))
        : undefined;
      const destination = parts.pop()!;
      for (const source of parts) {
        if (source.includes('*')) throw new Error(`COPY ${source}: the replay copies plain paths only`);
        const path = from ? join(from.root, posix.resolve(from.workdir, source)) : join(context, source);
        const target =
          destination.endsWith('/') || parts.length > 1 || source === '.'
            ? join(inRoot(stage, destination), source === '.' ? '' : posix.basename(source))
            : inRoot(stage, destination);
        mkdirSync(dirname(target), { recursive: true });
        cpSync(path, target, {
          recursive: true,
          verbatimSymlinks: true,
          filter: (file) => from !== undefined || !skip(relative(context, file)),
        });
      }
    } else if (op === 'RUN') {
      for (const command of args.split('&&').map((c) => c.trim())) {
        if (SYSTEM_SETUP.test(command) || /^mkdir -p \/data$/.test(command)) {
          stage.skipped.push(command);
          continue;
        }
        if (/(^|\s)\//.test(command))
          throw new Error(`RUN ${command}: an absolute path the replay cannot place in its stage`);
        log(`RUN ${command}`);
        execFileSync('sh', ['-c', command], {
          cwd: inRoot(stage, '.'),
          env: { ...process.env, PATH: `${dirname(stage.node)}:${process.env.PATH}`, ...stage.env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
      }
    } else if (op === 'USER') stage.user = args;
    else if (op === 'ENTRYPOINT') stage.entrypoint = execForm(args);
    else if (op === 'CMD') stage.cmd = execForm(args);
    else if (op === 'HEALTHCHECK') stage.healthcheck = execForm(args.slice(args.indexOf('CMD ') + 4));
    else if (!['VOLUME', 'EXPOSE', 'ARG', 'LABEL', 'STOPSIGNAL'].includes(op))
      throw new Error(`the replay does not know ${op}`);
  }
  return stages;
}
