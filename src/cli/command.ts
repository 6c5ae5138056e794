/** The shape of one CLI command: its help text, its options, and what it does. */
import type { ParseArgsConfig } from 'node:util';
import { resolveOptions } from '../options/resolve.js';
import type { Io, Output } from '../util/output.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  out: Output;
  io: Io;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
}

export interface Command {
  name: string;
  summary: string;
  /** Usage line(s), option list and examples, shown by --help. */
  help: string;
  options: OptionSpec;
  /** Positional arguments it takes (beyond which parsing fails). */
  maxPositionals?: number;
  /** Resolves to the exit code. */
  run(ctx: CommandContext): Promise<number>;
}

/** Options every command takes. */
export const COMMON_OPTIONS: OptionSpec = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
};

export const COMMON_HELP = `  --json            machine-readable output on stdout (one JSON document per result)
  -h, --help        this help`;

export function str(v: string | boolean | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The server a command is pointed at: its argument, else --url, else the URL the environment names. */
export function targetUrl({ positionals, values, io }: Pick<CommandContext, 'positionals' | 'values' | 'io'>): string | undefined {
  return positionals[0] ?? str(values.url) ?? resolveOptions({}, io.env).url;
}
