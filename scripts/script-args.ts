import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A script's command line, the way the npm scripts take theirs: `--help` prints the usage line and
 * exits 0; an unknown or malformed option, and any problem the script finds later through `usage`,
 * prints it with the usage line and exits 2.
 */
export function scriptArgs<const T extends Options>(name: string, usageLine: string, options: T) {
  const usage = (problem: string): never => {
    process.stderr.write(`${name}: ${problem}\n${usageLine}\n`);
    process.exit(2);
  };
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean' } } });
  } catch (error) {
    return usage((error as Error).message.split('\n')[0]!);
  }
  if (parsed.values.help === true) {
    process.stdout.write(`${usageLine}\n`);
    process.exit(0);
  }
  return { values: parsed.values as ReturnType<typeof parseArgs<{ options: T }>>['values'], usage };
}
