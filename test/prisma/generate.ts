/**
 * Generates a Prisma client for a test schema when its output is missing or stale. Generated
 * clients are build output (gitignored); `prisma generate` needs no schema engine, only an
 * executable in PRISMA_SCHEMA_ENGINE_BINARY so that the CLI does not try to download one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');

export function ensureGenerated(schemaPath: string): string {
  const schema = resolve(root, schemaPath);
  const text = readFileSync(schema, 'utf8');
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
    execFileSync(process.execPath, [join(root, 'node_modules/prisma/build/index.js'), 'generate', '--schema', schema], {
      cwd: root,
      env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
      stdio: 'pipe',
    });
    writeFileSync(stampFile, stamp);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return output;
}
