/** `fast-test-db doctor`: what this machine offers, and whether a given server is fit for tests. */
import { parseDuration } from '../duration.js';
import { doctor, type DoctorCheck } from '../tools/doctor.js';
import { COMMON_HELP, COMMON_OPTIONS, str, targetUrl, type Command } from '../command.js';
import type { Output } from '../../util/output.js';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check binaries, Docker, tmpfs and a server URL; says what to change, exits 1 when something is wrong',
  help: `Usage: fast-test-db doctor [URL] [options]

Finds PostgreSQL and MySQL/MariaDB server binaries, a Docker engine and tmpfs, lists servers we
started for this project, and checks the server at URL (default: FAST_TEST_DB_URL): reachable? tuned (durability
off)? on this machine? data in memory? For each problem it prints the exact flags to change.
Exit code: 0 when nothing is wrong, 1 when a check failed.

Options:
  --url URL         the server to check (same as the positional URL)
  --bin-dir DIR     where to look for server binaries
  --data-root DIR   where our servers keep their data (default /dev/shm)
  --timeout D       give up connecting after this long, e.g. 5s (default 10s)
  --all             list the servers we started for every project, not only this one's
${COMMON_HELP}

Examples:
  fast-test-db doctor
  fast-test-db doctor postgres://postgres@localhost:5432/postgres
  fast-test-db doctor mysql://root@127.0.0.1:3306 --json`,
  options: {
    ...COMMON_OPTIONS,
    url: { type: 'string' },
    'bin-dir': { type: 'string' },
    'data-root': { type: 'string' },
    timeout: { type: 'string' },
    all: { type: 'boolean' },
  },
  maxPositionals: 1,
  async run({ values, positionals, out, io }) {
    const url = targetUrl({ positionals, values, io });
    const timeout = str(values.timeout);
    const status = out.status(url ? 'checking this machine and the server' : 'checking this machine');
    const report = await doctor({
      url,
      binDir: str(values['bin-dir']),
      dataRoot: str(values['data-root']),
      connectTimeoutMs: timeout ? parseDuration(timeout) : undefined,
      all: Boolean(values.all),
      env: io.env,
    });
    status.succeed('checked');
    out.data(report);
    for (const c of report.checks) printCheck(out, c);
    const failed = report.checks.filter((c) => c.status === 'fail').length;
    out.line(report.ok ? `\n${out.c.green('Nothing wrong.')}` : `\n${out.c.red(`${failed} problem(s):`)} see the fixes above.`);
    return report.ok ? 0 : 1;
  },
};

function printCheck(out: Output, c: DoctorCheck): void {
  const mark = { ok: out.c.green('✓'), info: out.c.blue('·'), warn: out.c.yellow('!'), fail: out.c.red('✗') }[c.status];
  out.line(`${mark} ${c.status === 'fail' ? out.c.bold(c.title) : c.title}`);
  if (c.detail) out.line(out.c.dim(`    ${c.detail}`));
  if (c.fix) for (const [i, l] of c.fix.split('\n').entries()) out.line(`    ${i === 0 ? out.c.bold('fix: ') : '     '}${l}`);
}
