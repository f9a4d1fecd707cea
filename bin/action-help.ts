import type { CAC, Command } from 'cac';
import { UsageError, valueFlags } from './cli-args.js';
import { VERSION } from '../kernel/version.js';

/** An action of a command group as its description lists it (`job status <id>`): its name and usage. */
interface Action {
  readonly name: string;
  readonly usage: string;
}

/** The actions a group's description names in backticks, e.g. "`job submit`, `job status <id>`". */
function actionsOf(command: Command): Action[] {
  const actions = new Map<string, Action>();
  for (const [, usage] of command.description.matchAll(/`([^`]+)`/g)) {
    const [group, name] = usage!.split(' ');
    if (group === command.name && name && !actions.has(name)) actions.set(name, { name, usage: usage! });
  }
  return [...actions.values()];
}

/**
 * Which actions an option serves, from its description's prefix ("submit/estimate: …", "deploy and
 * send: …"); undefined for an option of every action.
 */
function servedBy(description: string): { actions: string[]; text: string } | undefined {
  const match = /^([a-z-]+(?:(?:\/| and |, )[a-z-]+)*): (.*)$/s.exec(description);
  return match ? { actions: match[1]!.split(/\/| and |, /), text: match[2]! } : undefined;
}

/**
 * `<bin> <group> <action> --help`: the action's usage and the options it takes (with the global
 * ones), instead of the whole group's; `<group> --help` stays cac's. Answers whether it printed:
 * the caller then exits 0. An action the group does not have is a usage error naming the ones it has.
 */
export function printActionHelp(cli: CAC, bin: string, argv: readonly string[]): boolean {
  const args = argv.slice(2);
  if (!args.includes('--help') && !args.includes('-h')) return false;
  // The words typed, without flags and the values they take (`--url http://…` is not a command).
  const takesValue = valueFlags(cli);
  const words = args.filter(
    (arg, i) =>
      !arg.startsWith('-') && !(i > 0 && /^--[^=]+$/.test(args[i - 1]!) && takesValue.has(args[i - 1]!.slice(2))),
  );
  const command = cli.commands.find((c) => c.name === words[0]);
  if (!command || words.length < 2) return false;
  const actions = actionsOf(command);
  if (actions.length === 0) return false;
  const action = actions.find((a) => a.name === words[1]);
  if (!action)
    throw new UsageError(
      `${command.name}: unknown action "${words[1]}" (${actions.map((a) => `${command.name} ${a.name}`).join(', ')})`,
    );
  const options = [
    ...command.options.flatMap((option) => {
      const served = servedBy(option.description);
      if (served && !served.actions.includes(action.name)) return [];
      return [{ name: option.rawName, text: served?.text ?? option.description, fallback: option.config.default }];
    }),
    ...cli.globalCommand.options.map((option) => ({
      name: option.rawName,
      text: option.description,
      fallback: option.config.default,
    })),
  ];
  const width = Math.max(...options.map((o) => o.name.length));
  const lines = [
    `${bin}/${VERSION}`,
    '',
    `Usage:`,
    `  $ ${bin} ${action.usage} [options]`,
    '',
    'Options:',
    ...options.map(
      (o) =>
        `  ${o.name.padEnd(width)}  ${o.text}${o.fallback !== undefined ? ` (default: ${String(o.fallback)})` : ''}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return true;
}
