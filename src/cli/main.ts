/** Parses the command line, runs one command, and turns every failure into a message and an exit code. */
import { parseArgs } from 'node:util';
import { CONFIG_PATTERN } from '../options/config.js';
import { FastTestDbError, messageOf } from '../errors.js';
import { VERSION } from '../util/version.js';
import type { Command } from './command.js';
import { cleanCommand } from './commands/clean.js';
import { doctorCommand } from './commands/doctor.js';
import { initCommand } from './commands/init.js';
import { monitorCommand } from './commands/monitor.js';
import { startCommand } from './commands/start.js';
import { stopCommand } from './commands/stop.js';
import { urlCommand } from './commands/url.js';
import { Output, type Io } from '../util/output.js';

export const COMMANDS: Command[] = [initCommand, startCommand, stopCommand, urlCommand, doctorCommand, monitorCommand, cleanCommand];

/** Exit codes: 0 fine, 1 a check or an operation failed, 2 the command line is wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `fast-test-db ${VERSION}: real PostgreSQL and MySQL/MariaDB for integration tests, fast

Usage: fast-test-db <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Every command takes --help and --json. Colours only on a terminal (NO_COLOR turns them off).
Options also come from ${CONFIG_PATTERN} in the current directory.`;
}

export async function main(argv: string[], io: Io, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json') || argv.includes('--json');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.stdout.write((topic ? topic.help : usage()) + '\n');
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(VERSION + '\n');
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const out = new Output(io, { json });
    out.error(
      new FastTestDbError(
        'BAD_OPTION',
        `unknown command "${name}"`,
        `run one of: ${COMMANDS.map((c) => c.name).join(', ')} (fast-test-db --help lists them)`,
      ),
    );
    return EXIT.usage;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    if (parsed.positionals.length > (command.maxPositionals ?? 0))
      throw new Error(`unexpected argument "${parsed.positionals[command.maxPositionals ?? 0]}"`);
  } catch (e) {
    const out = new Output(io, { json });
    out.error(
      new FastTestDbError(
        'BAD_OPTION',
        `${name}: ${messageOf(e).replace(/\. To specify a positional.*$/s, '')}`,
        `see fast-test-db ${name} --help`,
      ),
    );
    return EXIT.usage;
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    io.stdout.write(command.help + '\n');
    return EXIT.ok;
  }
  const out = new Output(io, { json: Boolean(values.json) });
  try {
    return await command.run({ values, positionals: parsed.positionals, out, io, signal });
  } catch (e) {
    out.error(e);
    return e instanceof FastTestDbError && e.code === 'BAD_OPTION' ? EXIT.usage : EXIT.failed;
  }
}
