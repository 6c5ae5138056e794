import { readFileSync } from 'node:fs';
import { defineConfig, type Format, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

interface Entry {
  name: string;
  source: string;
  formats: Format[];
  alone?: boolean;
}

/**
 * What to build, from the list package.json's entry fields are written from (scripts/entries.json,
 * which says why each entry has its formats): one build per set of formats, each entry named by its
 * file under dist/; an entry built `alone` is one file of its own (a build without splitting),
 * whose modules are copies of the shared chunks' (it holds no state: see the setup files).
 */
const { entries } = JSON.parse(readFileSync('scripts/entries.json', 'utf8')) as { entries: Entry[] };
const builds = new Map<string, { format: Format[]; entry: Record<string, string>; splitting: boolean }>();
for (const { name, source, formats, alone } of entries) {
  const key = alone ? name : formats.join(',');
  if (!builds.has(key)) builds.set(key, { format: formats, entry: {}, splitting: !alone });
  builds.get(key)!.entry[name] = source;
}

/**
 * removeNodeProtocol: tsup 8 strips `node:` by default, which turns `import('node:test')` into
 * `import('test')`: a package name, since `test` exists only as `node:test`.
 * test/package/dist.test.ts checks that no built file imports a bare built-in name.
 */
const common: Options = {
  // Our version, part of every template fingerprint: written in from package.json, never by hand.
  define: { __FAST_TEST_DB_VERSION__: JSON.stringify(version) },
  dts: true,
  sourcemap: false,
  shims: true,
  target: 'node20',
  platform: 'node',
  clean: false,
  removeNodeProtocol: false,
};

export default defineConfig([...builds.values()].map((build) => ({ ...common, ...build })));
