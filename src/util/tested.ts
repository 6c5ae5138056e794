/**
 * The versions of the ORMs and runners that `npm test` runs (docs/versions.md), and the one line a
 * version outside them gets. The peer ranges in package.json are wider, the majors that work, so
 * that npm never upgrades an app's own copy (TypeORM 0.2.37, 0.3.7 and 1.0.0, Jest 27 and Prisma
 * 7.4 were met in apps and worked): an untested version runs, and the user is told, never refused.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { invocation, untestedNoted } from '../state.js';

/** Each package's tested spans, [lowest, next untested) in x.y.z; `shown` is the same in words. */
export const TESTED: Readonly<Record<string, { spans: [string, string][]; shown: string }>> = {
  typeorm: {
    spans: [
      ['0.2.45', '0.3.0'],
      ['0.3.20', '0.4.0'],
      ['1.1.1', '2.0.0'],
    ],
    shown: '0.2.45+, 0.3.20+, 1.1.1+ below 2',
  },
  // Every span starts at a version a devDependency (or its npm alias) of this package installs.
  '@prisma/client': {
    spans: [
      ['6.19.0', '7.0.0'],
      ['7.10.0', '8.0.0'],
    ],
    shown: '6.19+ below 7, 7.10+ below 8',
  },
  // 0.x: each minor may break, so a span is the tested minor (0.41 to 0.44 are not run).
  'drizzle-orm': {
    spans: [
      ['0.40.0', '0.41.0'],
      ['0.45.4', '0.46.0'],
    ],
    shown: '0.40.x, 0.45.4+ below 0.46',
  },
  jest: { spans: [['29.7.0', '31.0.0']], shown: '29.7+ and 30' },
  vitest: { spans: [['4.1.12', '5.0.0']], shown: '4.1.12+ below 5' },
};

/**
 * The version of `pkg` that code in `dir` loads, or 'unknown'. Through its package.json when the
 * package exports it, else up from its main file (drizzle-orm and typeorm export no package.json).
 */
export function installedVersion(pkg: string, dir: string = process.cwd()): string {
  const req = createRequire(join(dir, 'noop.js'));
  try {
    return (req(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    // not exported: walk up from the entry point
  }
  try {
    for (let d = dirname(req.resolve(pkg)); d !== dirname(d); d = dirname(d)) {
      try {
        const json = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (json.name === pkg && json.version) return json.version;
      } catch {
        // no package.json at this level
      }
    }
  } catch {
    // not installed where `dir` resolves
  }
  return 'unknown';
}

/** `a` before `b`, in x.y.z (a prerelease or build tail is ignored). */
function below(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split(/[-+]/)[0]!.split('.').map(Number));
  for (let i = 0; i < 3; i++) if ((x![i] ?? 0) !== (y![i] ?? 0)) return (x![i] ?? 0) < (y![i] ?? 0);
  return false;
}

/** The line for `pkg` at `version`, or undefined when that version is tested (or not known). */
export function untestedNote(pkg: string, version: string): string | undefined {
  const t = TESTED[pkg];
  if (!t || !/^\d+\.\d+\.\d+/.test(version)) return undefined;
  if (t.spans.some(([lo, hi]) => !below(version, lo) && below(version, hi))) return undefined;
  return `fast-test-db: ${pkg} ${version} is not one of the tested versions (${t.shown}); it runs, and a failure that looks like ours is worth reporting with this line`;
}

/**
 * Says `pkg`'s line once per process, and not in a runner's worker: the runner's main process
 * loaded the same package for the template and said it there, so a run says it once. A quiet run
 * says nothing.
 *
 * The line waits for the run's quiet (settleUntested) instead of taking it from the caller: the ORM
 * adapters and the runners' setups meet the version before their entry has resolved its options
 * (an adapter runs inside the config that entry is reading, the Vitest setup before the config file
 * is read), so no caller has the quiet to pass, and each would have to check it.
 */
export function noteUntested(pkg: string, version: string, stderr: Pick<NodeJS.WriteStream, 'write'> = process.stderr): void {
  if (untestedNoted.packages.has(pkg) || invocation.joined !== undefined) return;
  const note = untestedNote(pkg, version);
  if (!note) return;
  untestedNoted.packages.add(pkg);
  if (untestedNoted.quiet === undefined) untestedNoted.held.push({ note, stderr });
  else if (!untestedNoted.quiet) stderr.write(`${note}\n`);
}

/** noteUntested for the copy of `pkg` that code in `dir` loads. */
export function noteInstalled(pkg: string, dir?: string, stderr?: Pick<NodeJS.WriteStream, 'write'>): void {
  if (untestedNoted.packages.has(pkg) || invocation.joined !== undefined) return;
  noteUntested(pkg, installedVersion(pkg, dir), stderr);
}

/**
 * The quiet of an entry whose options were just resolved (options/context.ts, options/config.ts):
 * the lines held until now are said under it, or dropped, and later lines follow it until the next
 * entry says its own.
 */
export function settleUntested(quiet: boolean): void {
  untestedNoted.quiet = quiet;
  for (const { note, stderr } of untestedNoted.held.splice(0)) if (!quiet) stderr.write(`${note}\n`);
}
