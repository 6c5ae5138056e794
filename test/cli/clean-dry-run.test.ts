/**
 * What `clean --dry-run` prints about sizes and progress: a binaries copy laid out as the real one
 * is (each shared library under three names, two of them symlinks) is reported at the bytes it
 * holds, not once per name, and the counter never shows more done than it says there are.
 */
import { linkSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { contextOf } from '../../src/options/context.js';
import { treeBytes } from '../../src/server/os/warm-cache.js';
import { isolatedEnv, jsonLines, runCli } from './cli.js';

const iso = isolatedEnv('clean-dry');
const root = serversRoot(contextOf({ dataRoot: iso.root }));
afterAll(() => iso.cleanup());

const MB = 1024 * 1024;

test('a binaries copy with library symlinks and hard links is sized once per file; the counter reads n/n', async () => {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const copy = join(root, 'bin-postgres-18-abcdef0123');
  mkdirSync(join(copy, 'lib'), { recursive: true });
  mkdirSync(join(copy, 'bin'), { recursive: true });
  writeFileSync(join(copy, 'lib', 'libicudata.so.60.2'), Buffer.alloc(3 * MB));
  symlinkSync('libicudata.so.60.2', join(copy, 'lib', 'libicudata.so.60'));
  symlinkSync('libicudata.so.60.2', join(copy, 'lib', 'libicudata.so'));
  writeFileSync(join(copy, 'bin', 'postgres'), Buffer.alloc(MB));
  linkSync(join(copy, 'bin', 'postgres'), join(copy, 'bin', 'postmaster'));
  symlinkSync('../lib', join(copy, 'bin', 'lib')); // a directory symlink: not walked into
  const symlinkBytes = 2 * 'libicudata.so.60.2'.length + '../lib'.length;
  expect(treeBytes(copy)).toBe(4 * MB + symlinkBytes);
  const old = new Date(Date.now() - 86_400_000);
  utimesSync(copy, old, old);
  // A second piece of work found after the first: a server directory with nothing left in it.
  mkdirSync(join(root, 'postgres-0123456789'));

  const json = await runCli(['clean', '--older-than', '1h', '--dry-run', '--all', '--json'], iso.env);
  expect(json.code, json.stderr).toBe(0);
  const report = jsonLines<{ files: Array<{ path: string; bytes: number; action: string }> }>(json.stdout)[0]!;
  expect(report.files).toEqual([expect.objectContaining({ path: copy, bytes: 4 * MB + symlinkBytes, action: 'would remove' })]);

  const text = await runCli(['clean', '--older-than', '1h', '--dry-run', '--all'], iso.env);
  expect(text.code, text.stderr).toBe(0);
  expect(text.stdout).toContain(`binaries copy ${copy} (4 MB): would remove`);
  expect(text.stdout).toContain('would remove 1 leftover cop(ies) (4 MB)');
  const counts = [...text.stderr.matchAll(/\b(\d+)\/(\d+)\b/g)].map((m) => [Number(m[1]), Number(m[2])]);
  expect(counts.length).toBeGreaterThan(0);
  expect(counts.at(-1)).toEqual([2, 2]);
  for (const [done, total] of counts) expect(done).toBeLessThanOrEqual(total!);
});
