/**
 * Generated projects for init's tests: a package.json, the runner's config and the ORM's files of
 * one ORM × runner × engine, in a folder of their own under /tmp, and init run on them in process
 * (its --json result) or as the CLI.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import ts from 'typescript';
import { main } from '../../../src/cli/main.js';

export type Orm = 'typeorm' | 'prisma' | 'drizzle';
export type Runner = 'jest' | 'vitest' | 'mocha' | 'node-test';
export type Engine = 'postgres' | 'mysql';

export interface Spec {
  orm: Orm;
  runner: Runner;
  engine: Engine;
  /** Extra files, by path; `package.json` fields merge into the generated one. */
  files?: Record<string, string>;
  pkg?: Record<string, unknown>;
}

const DRIVER = { postgres: 'pg', mysql: 'mysql2' } as const;

export function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** The files of a project of that shape, before adoption: it reads DATABASE_URL, as most do. */
export function projectFiles(spec: Spec): Record<string, string> {
  const { orm, runner, engine } = spec;
  const deps: Record<string, string> = { [DRIVER[engine]]: '^8.0.0' };
  const dev: Record<string, string> = { typescript: '^5.9.0' };
  const files: Record<string, string> = { 'tsconfig.json': '{ "compilerOptions": { "strict": true } }\n', 'package-lock.json': '{}\n' };
  if (orm === 'typeorm') {
    deps.typeorm = '^0.3.20';
    files['src/user.entity.ts'] =
      `import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';\n@Entity()\nexport class User {\n  @PrimaryGeneratedColumn() id!: number;\n  @Column('varchar') name!: string;\n}\n`;
    files['src/data-source.ts'] =
      `import type { DataSourceOptions } from 'typeorm';\nimport { User } from './user.entity';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: '${engine}',\n  url: process.env.DATABASE_URL,\n  entities: [User],\n};\n`;
  } else if (orm === 'prisma') {
    deps['@prisma/client'] = '^7.0.0';
    dev.prisma = '^7.0.0';
    files['prisma/schema.prisma'] =
      `datasource db {\n  provider = "${engine === 'mysql' ? 'mysql' : 'postgresql'}"\n}\n\nmodel User {\n  id   Int    @id @default(autoincrement())\n  name String\n}\n`;
    files['prisma/migrations/20250101000000_init/migration.sql'] = 'CREATE TABLE "User" (id SERIAL PRIMARY KEY, name TEXT NOT NULL);\n';
  } else {
    deps['drizzle-orm'] = '^0.45.0';
    dev['drizzle-kit'] = '^0.31.0';
    files['drizzle.config.ts'] =
      `import { defineConfig } from 'drizzle-kit';\n\nexport default defineConfig({\n  dialect: '${engine === 'mysql' ? 'mysql' : 'postgresql'}',\n  schema: './src/schema.ts',\n  out: './drizzle',\n});\n`;
    files['src/schema.ts'] =
      engine === 'mysql'
        ? `import { int, mysqlTable, varchar } from 'drizzle-orm/mysql-core';\nexport const users = mysqlTable('users', { id: int('id').autoincrement().primaryKey(), name: varchar('name', { length: 100 }).notNull() });\n`
        : `import { pgTable, serial, text } from 'drizzle-orm/pg-core';\nexport const users = pgTable('users', { id: serial('id').primaryKey(), name: text('name').notNull() });\n`;
    files['drizzle/meta/_journal.json'] = '{"version":"7","dialect":"postgresql","entries":[]}\n';
  }
  const scripts: Record<string, string> = {};
  if (runner === 'jest') {
    dev.jest = '^29.7.0';
    dev['ts-jest'] = '^29.0.0';
    scripts.test = 'jest';
    files['jest.config.js'] = `module.exports = {\n  preset: 'ts-jest',\n  testEnvironment: 'node',\n};\n`;
  } else if (runner === 'vitest') {
    dev.vitest = '^4.0.0';
    scripts.test = 'vitest run';
    files['vitest.config.ts'] =
      `import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  test: { include: ['test/**/*.test.ts'] },\n});\n`;
  } else if (runner === 'mocha') {
    dev.mocha = '^11.0.0';
    dev.tsx = '^4.0.0';
    scripts.test = 'mocha --import tsx test/**/*.test.ts';
  } else {
    dev.tsx = '^4.0.0';
    scripts.test = 'node --import tsx --test test/*.test.ts';
  }
  files['test/user.test.ts'] = `// connects through process.env.DATABASE_URL\nexport const url = process.env.DATABASE_URL;\n`;
  const pkg = { name: `app-${orm}-${runner}-${engine}`, private: true, scripts, dependencies: deps, devDependencies: dev, ...spec.pkg };
  return { ...files, 'package.json': `${JSON.stringify(pkg, null, 2)}\n`, ...spec.files };
}

export interface Made {
  dir: string;
  read(path: string): string;
  cleanup(): void;
}

export function makeProject(spec: Spec, files = projectFiles(spec)): Made {
  const dir = mkdtempSync(`/tmp/ftdb-init-${spec.orm}-${spec.runner}-${spec.engine}-`);
  write(dir, files);
  return { dir, read: (p) => readFileSync(join(dir, p), 'utf8'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface InitResult {
  code: number;
  json: {
    inferred: Array<{ what: string; value: string; from: string }>;
    files: Array<{ path: string; created: boolean; diff: string; lines: number }>;
    lines: number;
    left: string[];
    notes: string[];
    install?: string;
    refused: string[];
  };
  error?: { code: string; message: string; fix?: string };
}

/** init through the CLI's main(), in this process, with --json. */
export async function init(dir: string, ...args: string[]): Promise<InitResult> {
  let out = '';
  const sink = new Writable({ write: (c, _e, cb) => ((out += c), cb()) });
  const code = await main(['init', '--dir', dir, '--json', ...args], {
    stdout: sink,
    stderr: new Writable({ write: (_c, _e, cb) => cb() }),
    env: {},
  });
  const doc = JSON.parse(out.trim().split('\n').pop()!);
  return { code, json: doc, error: doc.error };
}

/** Syntax errors of a written JS/TS file (empty: it parses). */
export function syntaxErrors(path: string, text: string): string[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  return ((sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? []).map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}
