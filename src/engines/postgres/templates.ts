/** Templates as PostgreSQL template databases, cloned with CREATE DATABASE ... TEMPLATE. */
import { driverErrorKind } from '../errors.js';
import type { LoadOptions, TemplateStore } from '../engine.js';
import { encodeMarker, decodeMarker, stagingName } from '../marker.js';
import { logger } from '../../util/log.js';
import { connectPostgres, type PgClient } from './client.js';
import { createStaged, readMarker } from './marker.js';
import { id, lit } from './quote.js';
import { readResetBaseline, snapshotSeeded, type ResetBaseline } from './reset.js';
import { endConnections } from './swap.js';
import { convertToUnlogged } from './unlogged.js';

const log = logger('postgres');

export function templateStore(options: LoadOptions): TemplateStore<PgClient> {
  const strategy = options.cloneStrategy === 'wal_log' ? 'WAL_LOG' : 'FILE_COPY';
  return {
    staged: true,
    // A template with a session cannot be cloned.
    clonesNeedNoSessions: true,
    async templateState(admin, name) {
      const rows = await admin.query<{ istemplate: boolean; comment: string | null }>(
        `SELECT datistemplate AS istemplate, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
        [name],
      );
      if (rows.length === 0) return 'missing';
      if (decodeMarker(rows[0]!.comment)?.kind !== 'template') return 'unmarked';
      return rows[0]!.istemplate ? 'complete' : 'incomplete';
    },

    async createEmpty(admin, name, marker) {
      await createStaged(admin, name, 'template', `CREATE DATABASE ${id(stagingName(name))}`, () => encodeMarker(marker));
    },

    async completeTemplate(admin, server, name, opts) {
      const db = await connectPostgres(server, name);
      let state: ResetBaseline;
      try {
        if (opts.unlogged) log('unlogged: %o', await convertToUnlogged(db));
        state = await readResetBaseline(db);
        state = { ...state, ...(await snapshotSeeded(db, state.seeded, opts.unlogged)) };
      } finally {
        await db.close();
      }
      const marker = {
        ...(await readMarker(admin, name))!,
        seeded: [...state.seeded],
        sequences: { ...state.sequences },
        seedRows: state.seedRows,
        seedXid: state.seedXid,
        unpopulated: [...(state.unpopulated ?? [])],
        largeObjects: [...(state.largeObjects ?? [])],
      };
      // Migrations may leave pooled connections behind; a template must have none to be cloned.
      await endConnections(admin, name);
      await admin.query(`COMMENT ON DATABASE ${id(name)} IS ${lit(encodeMarker(marker))}`);
      await admin.query(`ALTER DATABASE ${id(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    },

    async clone(admin, server, template, name, marker) {
      // bench/ measures both strategies.
      const using = server.major >= 15 ? ` STRATEGY ${strategy}` : '';
      // The clone carries what reset() must restore, so that reset needs nothing but its own connection.
      const from = await readMarker(admin, template);
      const { seeded, sequences, seedRows, seedXid, unpopulated, largeObjects } = from ?? {};
      await createStaged(admin, name, 'clone', `CREATE DATABASE ${id(stagingName(name))} TEMPLATE ${id(template)}${using}`, () =>
        encodeMarker({ ...marker, seeded, sequences, seedRows, seedXid, unpopulated, largeObjects }),
      );
    },

    async drop(admin, name, opts) {
      // A template cannot be dropped while marked as one. One already gone (renamed or dropped by its
      // creator since it was listed) is as good as dropped, as DROP DATABASE IF EXISTS would say.
      try {
        await admin.query(`ALTER DATABASE ${id(name)} IS_TEMPLATE false`);
      } catch (e) {
        if (driverErrorKind(e) === 'database-missing') return;
        throw e;
      }
      if (opts.force) await endConnections(admin, name);
      await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`);
    },
  };
}
