/**
 * The published manifest runs nothing at install: npm 11 lists a dependency's install scripts
 * (`preinstall`, `install`, `postinstall`, `prepare`) as "not yet covered by allowScripts", and a
 * test library has nothing to build on a user's machine. Checked on the packed package.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../runners/harness.js';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish', 'preprepare', 'postprepare'];
const dir = mkdtempSync(join(tmpdir(), 'ftdb-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the packed manifest has no install scripts', () => {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }),
  ) as { filename: string }[];
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', join(dir, packed!.filename), 'package/package.json'], { encoding: 'utf8' }),
  ) as { scripts?: Record<string, string> };
  expect(Object.keys(manifest.scripts ?? {}).filter((s) => INSTALL_SCRIPTS.includes(s))).toEqual([]);
  // The scripts that remain are the repository's own tools, which npm never runs on install.
  expect(manifest.scripts?.build).toBeDefined();
});
