/**
 * Generates a Prisma client for a test schema when its output is missing or stale. Generated
 * clients are build output (gitignored); `prisma generate` needs no schema engine, only an
 * executable in PRISMA_SCHEMA_ENGINE_BINARY so that the CLI does not try to download one
 * (Prisma 6's CLI also wants a query engine library it never loads for engineType "client").
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../../..');

/** Which CLI generates: the installed `prisma` (7), or an aliased older major. */
export interface PrismaCli {
  /** The CLI package folder under node_modules, e.g. 'prisma-6'. Default 'prisma'. */
  package?: string;
}

/**
 * The same schema for Prisma 6 with driver adapters: a client without a native engine
 * (engineType "client"), and the datasource url that 6 still requires. Written next to the
 * generated clients (gitignored), so that the one schema file stays the source.
 */
export function prisma6Schema(schemaPath: string): string {
  const source = resolve(root, schemaPath);
  const name = basename(dirname(source));
  const text = readFileSync(source, 'utf8')
    .replace(
      /output\s*=\s*"[^"]+"/,
      `output = "./zoo-${name}-prisma6"\n  previewFeatures = ["driverAdapters", "queryCompiler"]\n  engineType = "client"\n  runtime = "nodejs"`,
    )
    .replace(/(datasource db \{[^}]*provider\s*=\s*"[^"]+")/, '$1\n  url = env("DATABASE_URL")');
  const out = resolve(root, 'test/adapters/prisma/generated', `schema-${name}-prisma6.prisma`);
  mkdirSync(dirname(out), { recursive: true });
  if (!existsSync(out) || readFileSync(out, 'utf8') !== text) writeFileSync(out, text);
  return out;
}

export function ensureGenerated(schemaPath: string, cli: PrismaCli = {}): string {
  const schema = resolve(root, schemaPath);
  const text = readFileSync(schema, 'utf8');
  const cliPackage = cli.package ?? 'prisma';
  const output = resolve(dirname(schema), /output\s*=\s*"([^"]+)"/.exec(text)![1]!);
  const stampFile = join(output, '.stamp');
  const stamp = createHash('sha256').update(text).digest('hex');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return output;
  // Test files run in parallel workers: one generates, the others wait for its stamp.
  const lock = `${output}.lock`;
  mkdirSync(dirname(output), { recursive: true });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return output;
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      execFileSync('sleep', ['0.2']);
    }
  }
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', cliPackage, 'build/index.js'), 'generate', '--schema', schema], {
      cwd: root,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
        PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? '/bin/true',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
      },
      stdio: 'pipe',
    });
    writeFileSync(stampFile, stamp);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return output;
}
