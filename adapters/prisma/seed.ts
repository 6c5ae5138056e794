/**
 * The seed `prisma db seed` runs: the command in prisma.config.ts (`migrations: { seed: '…' }`,
 * Prisma 6.x and 7) or in package.json (`"prisma": { "seed": "…" }`, Prisma up to 6). Run by the
 * template build as a seed command (the same command `prisma db seed` would run, with the template's
 * URL in DATABASE_URL), so neither the Prisma CLI nor its schema engine is needed, and the files the
 * command names count in the fingerprint (docs/templates.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FastTestDbError } from '../../src/adapter-kit.js';

const CONFIGS = ['prisma.config.ts', 'prisma.config.mts', 'prisma.config.js', 'prisma.config.mjs', 'prisma.config.cjs'];

/** The project's Prisma seed command, from its config file or package.json, and where it was found. */
export function prismaSeedCommand(cwd = process.cwd()): { command: string; from: string } {
  for (const name of CONFIGS) {
    const file = join(cwd, name);
    if (!existsSync(file)) continue;
    // A literal in the config's migrations block: the config module is not run here (it may read env vars, load dotenv).
    const seed = readFileSync(file, 'utf8').match(/\bseed\s*:\s*(['"`])((?:(?!\1).)+)\1/);
    if (seed) return { command: seed[2]!, from: name };
  }
  const pkgFile = join(cwd, 'package.json');
  if (existsSync(pkgFile)) {
    const seed = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { prisma?: { seed?: unknown } }).prisma?.seed;
    if (typeof seed === 'string' && seed.trim()) return { command: seed, from: 'package.json "prisma.seed"' };
  }
  throw new FastTestDbError(
    'BAD_OPTION',
    `seed: true runs the project's Prisma seed, and none was found in ${cwd} (prisma.config.ts migrations.seed, or package.json "prisma.seed")`,
    "add it where prisma db seed reads it, e.g. migrations: { seed: 'tsx prisma/seed.ts' } in prisma.config.ts, or pass the seed itself: seed: 'tsx prisma/seed.ts'",
  );
}
