/**
 * The few places where TypeORM majors differ for this adapter, in one file:
 * - 0.2.x exports `Connection` (connect/close); 0.3.x and 1.x export `DataSource` (initialize/destroy).
 * - An EntityManager names its owner `connection` up to 0.3.x and `dataSource` from 1.x.
 * Everything else the adapter reads (metadata, driver pools, QueryRunner) is the same in 0.2.45–1.x.
 */
import type { DataSource, DataSourceOptions, EntityManager } from 'typeorm';
import { FastTestDbError, loadPeer, noteUntested } from '../../src/adapter-kit.js';
import { typeormVersion } from './fingerprint.js';

/** DataSource (0.3+, 1.x) or Connection (0.2.x): both are built from options and own the driver. */
export type DataSourceClass = new (o: DataSourceOptions) => DataSource;

interface TypeormModule {
  DataSource?: DataSourceClass;
  Connection?: DataSourceClass;
  default?: TypeormModule;
}

/** `in` first: an export that a major lacks must read as absent, also through strict module proxies. */
function exported<K extends keyof TypeormModule>(mod: TypeormModule | undefined, key: K): TypeormModule[K] {
  return mod && typeof mod === 'object' && key in mod ? mod[key] : undefined;
}

/** 0.1.x and older: never tried, and their Connection API differs. */
function tooOld(version: string): boolean {
  return /^0\.[01]\./.test(version);
}

/** The class that connects the user's options, whichever major is installed. */
export async function loadDataSourceClass(why: string): Promise<DataSourceClass> {
  const mod = await loadPeer<TypeormModule>('typeorm', why);
  const def = exported(mod, 'default');
  const cls = exported(mod, 'DataSource') ?? exported(def, 'DataSource') ?? exported(mod, 'Connection') ?? exported(def, 'Connection');
  const version = typeormVersion();
  if (!cls || tooOld(version)) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      `${why} supports TypeORM 0.2.x and later; found typeorm ${version}${cls ? '' : ', which exports neither DataSource nor Connection'}`,
      'upgrade: npm install typeorm@^0.3.20 (or typeorm@^0.2.45 for the smallest step)',
    );
  }
  noteUntested('typeorm', version);
  return cls;
}

/** initialize() on 0.3+/1.x, connect() on 0.2.x. */
export async function openDataSource(ds: DataSource): Promise<DataSource> {
  const d = ds as DataSource & { connect?: () => Promise<DataSource> };
  return typeof d.initialize === 'function' ? d.initialize() : d.connect!();
}

/** destroy() on 0.3+/1.x, close() on 0.2.x. */
export async function closeDataSource(ds: DataSource): Promise<void> {
  const d = ds as DataSource & { close?: () => Promise<void> };
  await (typeof d.destroy === 'function' ? d.destroy() : d.close!());
}

/** The DataSource (or 0.2.x Connection) behind an EntityManager, whichever name the major gives it. */
export function dataSourceOf(manager: EntityManager): DataSource | undefined {
  const m = manager as EntityManager & { connection?: DataSource };
  return m.dataSource ?? m.connection;
}
