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
