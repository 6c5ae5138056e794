/** The version in every template fingerprint. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/util/version.js';

describe('VERSION', () => {
  it("is package.json's version, in the source and in the build's define", async () => {
    const root = join(import.meta.dirname, '../..');
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(version);
    // The build writes the version in from package.json, not from a literal.
    const tsup = readFileSync(join(root, 'tsup.config.ts'), 'utf8');
    expect(tsup).toMatch(/__FAST_TEST_DB_VERSION__: JSON\.stringify\(version\)/);
  });
});
