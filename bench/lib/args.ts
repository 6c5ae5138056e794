import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/**
 * Command-line options of the bench scripts: `--name value`, or BENCH_NAME in the environment
 * (the harness passes options that way when it runs a script as a child), and `--quick`.
 */
const argv = process.argv.slice(2);

export function benchArg(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : process.env[`BENCH_${name.toUpperCase()}`];
}

export const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** Writes a bench's own samples (the ORM inserts, the round trip) to bench/results/<bench>.json, with the machine's size and load. */
export function writeBenchResult(bench: string, fields: Record<string, unknown>): void {
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/${bench}.json`;
  const body = { bench, date: new Date().toISOString(), quick, node: process.version, cpus: cpus().length, load: loadavg(), ...fields };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  process.stdout.write(`\nwritten ${file}\n`);
}
