/**
 * The Prisma CLI path for building the template: `prisma migrate deploy`, or `prisma db push`
 * for projects without migrations. Both need Prisma's schema engine binary; when it is missing
 * (offline machines, blocked downloads) we say so and point at the SQL path, which needs none.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FastTestDbError, logger } from '../../src/adapter-kit.js';

const log = logger('prisma');

export type CliCommand = 'migrate-deploy' | 'db-push';

/** Where the `prisma` package's CLI entry is, resolved from the project (cwd) first. */
function prismaCli(): string {
  for (const base of [join(process.cwd(), 'package.json'), import.meta.url]) {
    try {
      return join(dirname(createRequire(base).resolve('prisma/package.json')), 'build', 'index.js');
    } catch {
      // try the next base
    }
  }
  throw new FastTestDbError(
    'PEER_MISSING',
    'the Prisma CLI path needs the package "prisma", which is not installed',
    'npm install --save-dev prisma, or use the default migrateWith: "sql"',
  );
}

const ENGINE_MISSING =
  /binaries\.prisma\.sh|ENOTFOUND|EAI_AGAIN|schema.engine.*(not found|could not be found|ENOENT)|Failed to fetch|download/i;

export function engineMissingError(detail: string): FastTestDbError {
  return new FastTestDbError(
    'BINARY_NOT_FOUND',
    `Prisma's schema engine is not available, so the Prisma CLI cannot run migrate deploy / db push: ${detail.trim().split('\n').slice(-3).join(' ')}`,
    'use migrateWith: "sql" (the default: applies prisma/migrations/*/migration.sql without the engine), or install the engine (run `prisma -v` once online, or set PRISMA_SCHEMA_ENGINE_BINARY to its path)',
  );
}

/** Runs `prisma migrate deploy` or `prisma db push` against `url`. */
export async function runPrismaCli(command: CliCommand, opts: { schema: string; migrations?: string; url: string }): Promise<void> {
  const env = { ...process.env };
  const bin = env.PRISMA_SCHEMA_ENGINE_BINARY;
  if (bin && !existsSync(bin)) throw engineMissingError(`PRISMA_SCHEMA_ENGINE_BINARY=${bin} does not exist`);
  // Prisma 7 reads the datasource URL only from a config file; write one that points at this database.
  const dir = mkdtempSync(join(tmpdir(), 'ftdb-prisma-'));
  const config = join(dir, 'prisma.config.mjs');
  writeFileSync(
    config,
    `export default ${JSON.stringify({ schema: resolve(opts.schema), migrations: opts.migrations ? { path: resolve(opts.migrations) } : undefined, datasource: { url: opts.url } }, null, 2)};\n`,
  );
  const args =
    command === 'migrate-deploy' ? ['migrate', 'deploy', '--config', config] : ['db', 'push', '--config', config, '--accept-data-loss'];
  log('prisma %s', args.join(' '));
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((res, rej) => {
      const child = spawn(process.execPath, [prismaCli(), ...args], { env, cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', rej);
      child.on('close', (c) => res({ code: c, output }));
    });
    if (code === 0) return;
    if (ENGINE_MISSING.test(output)) throw engineMissingError(output);
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `prisma ${args.slice(0, 2).join(' ')} failed (exit ${code}):\n${output.trim()}`,
      'fix the migration or schema shown above; run the same command by hand with DEBUG=prisma* for details',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
