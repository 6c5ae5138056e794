/**
 * PostgreSQL reset: back to the template's state in one round trip.
 *
 * Measured on a 30-table schema with 3 dirty tables: TRUNCATE of the dirty tables cost ~30 ms
 * (new files for every table, index and TOAST relation) where DELETE of the same few rows cost
 * ~0.5 ms. So rows go with DELETE, children before parents; a table holding more than
 * BIG_TABLE_ROWS rows, or caught in a foreign-key cycle (a self reference included), is
 * truncated instead. Sequences go back to the values they had in the template.
 *
 * Seeded tables (rows the template holds: migration history, reference data) must come back to
 * exactly the template's rows. The template keeps a copy of each in the schema SEED_SCHEMA (cloned
 * with it at no extra statement), their row counts, and a transaction id taken when it was
 * completed: every row it holds is older. A seeded table whose count differs, or that holds a row
 * newer than that id (an INSERT or UPDATE since), or that a TRUNCATE ... CASCADE reached, is emptied
 * and filled again from its copy. An untouched seeded table costs one scan of its few rows.
 *
 * The user's triggers stay silent during all this (session_replication_role = replica) where the
 * session may set it; elsewhere a warning says they may fire. It is set once for the whole session,
 * which is reset()'s own and runs nothing else: changing it empties the server's plan cache, and
 * set for the function's transaction only (changed and changed back on every call) it made every
 * statement of the function plan again, three quarters of a clean reset (1.2 ms of 1.6 ms on 30
 * tables, measured with pgbench). Materialized views come back as the template had them (refreshed from the restored tables,
 * or WITH NO DATA), and large objects a test made are unlinked.
 *
 * The catalog is read once per connection and compiled into a session-local function
 * (pg_temp), whose plans PL/pgSQL caches; each call checks a catalog signature first and asks
 * for a new plan when the schema changed under it.
 */
import { FastTestDbError } from '../../errors.js';
import { resetWarningsShown } from '../../state.js';
import { pausePoint } from '../../util/debug-pause.js';
import type { ResetReport } from '../../types.js';
import type { Resetter } from '../engine.js';
import type { PgClient } from './client.js';
import { readOwnMarker } from './marker.js';
import { lit } from './quote.js';

/** Above this many rows DELETE costs more than TRUNCATE's fixed price. */
const BIG_TABLE_ROWS = 1000;

/** Where the template keeps its copies of the seeded tables; never reset, never reported. */
export const SEED_SCHEMA = 'fast_test_db_seed';

const USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema', '${SEED_SCHEMA}') AND n.nspname NOT LIKE 'pg\\_%'`;

/**
 * Changes whenever a relation is created (oids only grow) or a foreign key added: two index
 * lookups, where counting the catalogs cost ~0.3 ms of every reset. What it misses, a table or
 * sequence dropped or renamed, makes the compiled function fail on its name: the function is then
 * compiled again from the catalog (resetPostgres).
 */
const SIGNATURE = `(SELECT max(oid)::int8 FROM pg_class) || '/' || (SELECT coalesce(max(oid)::int8, 0) FROM pg_constraint)`;

export interface ResetBaseline {
  /** Tables that had rows in the template: left as they are. */
  seeded: readonly string[];
  /** Sequences the template had used: name -> last_value. */
  sequences: Readonly<Record<string, string>>;
  /** Rows of each seeded table; absent in templates built before copies were kept. */
  seedRows?: Readonly<Record<string, number>>;
  /** A transaction id newer than every row of the template (32-bit, as xmin holds it). */
  seedXid?: string;
  /** Materialized views the template holds WITH NO DATA: a test's REFRESH is undone. */
  unpopulated?: readonly string[];
  /** The template's large objects (oids): any other is unlinked. */
  largeObjects?: readonly string[];
}

interface Catalog {
  signature: string;
  tables: Array<{ oid: number; name: string }>;
  keys: Array<{ from: number; to: number }>;
  sequences: Array<{ oid: number; name: string; start: string }>;
  /** Columns a seeded table is refilled through (generated ones left out). */
  columns: Map<string, string[]>;
  /** Materialized views, oldest first (a view built on another comes after it). */
  matviews: string[];
  /** Triggers of the user's tables that would fire on the refill, as `trigger on table`. */
  triggers: string[];
  /** Whether this session may set session_replication_role (a superuser, or granted SET on it). */
  silenceTriggers: boolean;
}

async function readCatalog(db: PgClient): Promise<Catalog> {
  // One connection runs one query at a time: read the catalog in sequence.
  const tables = await db.query<{ oid: number; name: string }>(`
      SELECT c.oid::int AS oid, c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relpersistence <> 't' AND ${USER_SCHEMAS}`);
  const keys = await db.query<{ from: number; to: number }>(
    `SELECT conrelid::int AS "from", confrelid::int AS "to" FROM pg_constraint WHERE contype = 'f' AND conparentid = 0`,
  );
  const sequences = await db.query<{ oid: number; name: string; start: string }>(`
      SELECT c.oid::int AS oid, c.oid::regclass::text AS name, s.seqstart::text AS start FROM pg_sequence s
      JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${USER_SCHEMAS}`);
  const [sig] = await db.query<{ signature: string }>(`SELECT ${SIGNATURE} AS signature`);
  const matviews = await db.query<{ name: string }>(`
      SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'm' AND ${USER_SCHEMAS} ORDER BY c.oid`);
  const triggers = await db.query<{ name: string }>(`
      SELECT quote_ident(t.tgname) || ' on ' || c.oid::regclass::text AS name FROM pg_trigger t
      JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT t.tgisinternal AND t.tgenabled <> 'D' AND ${USER_SCHEMAS} ORDER BY 1`);
  // Setting it to the value it has is allowed exactly when setting it to 'replica' is.
  const silenceTriggers = await db
    .query(`SELECT set_config('session_replication_role', current_setting('session_replication_role'), false)`)
    .then(
      () => true,
      () => false,
    );
  const cols = await db.query<{ oid: number; name: string }>(
    `
      SELECT a.attrelid::int AS oid, quote_ident(a.attname) AS name FROM pg_attribute a
      WHERE a.attrelid = ANY($1::int[]::oid[]) AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attrelid, a.attnum`,
    [tables.map((t) => t.oid)],
  );
  const columns = new Map<string, string[]>();
  const nameOf = new Map(tables.map((t) => [t.oid, t.name]));
  for (const c of cols) columns.set(nameOf.get(c.oid)!, [...(columns.get(nameOf.get(c.oid)!) ?? []), c.name]);
  return {
    signature: sig!.signature,
    tables,
    keys,
    sequences,
    columns,
    matviews: matviews.map((m) => m.name),
    triggers: triggers.map((t) => t.name),
    silenceTriggers,
  };
}

/** Every table that references `oid`, directly or through others: what TRUNCATE `oid` CASCADE reaches. */
function referencers(oid: number, keys: Catalog['keys']): Set<number> {
  const out = new Set<number>();
  const todo = [oid];
  while (todo.length) {
    const t = todo.pop()!;
    for (const k of keys) if (k.to === t && !out.has(k.from) && k.from !== oid) out.add(k.from), todo.push(k.from);
  }
  return out;
}

/** Children before parents; what sits in or behind a cycle is returned apart, to be truncated. */
export function deleteOrder(tables: Catalog['tables'], keys: Catalog['keys']): { ordered: number[]; truncated: number[] } {
  const ids = new Set(tables.map((t) => t.oid));
  const edges = keys.filter((k) => ids.has(k.from) && ids.has(k.to));
  const selfReferencing = new Set(edges.filter((k) => k.from === k.to).map((k) => k.from));
  const referencedBy = new Map<number, Set<number>>();
  for (const k of edges) if (k.from !== k.to) (referencedBy.get(k.to) ?? referencedBy.set(k.to, new Set()).get(k.to)!).add(k.from);
  const ordered: number[] = [];
  const done = new Set<number>();
  for (let progress = true; progress; ) {
    progress = false;
    for (const t of ids) {
      if (done.has(t) || selfReferencing.has(t)) continue;
      if ([...(referencedBy.get(t) ?? [])].every((child) => done.has(child))) {
        ordered.push(t);
        done.add(t);
        progress = true;
      }
    }
  }
  return { ordered, truncated: [...ids].filter((t) => !done.has(t)) };
}

function compile(catalog: Catalog, template: ResetBaseline): string {
  const keep = new Set(template.seeded);
  const name = new Map(catalog.tables.map((t) => [t.oid, t.name]));
  const oidOf = new Map(catalog.tables.map((t) => [t.name, t.oid]));
  const { ordered, truncated } = deleteOrder(catalog.tables, catalog.keys);
  // Seeded tables restorable from the template's copies (older templates kept none: left as they are).
  const copies =
    template.seedRows && template.seedXid
      ? template.seeded.map((t, i) => ({ t, i, rows: template.seedRows![t] })).filter((c) => oidOf.has(c.t) && c.rows !== undefined)
      : [];
  const restorable = new Set(copies.map((c) => c.t));
  /** The seeded tables a TRUNCATE ... CASCADE of `t` empties along with it. */
  const cascaded = (t: string) => [...referencers(oidOf.get(t)!, catalog.keys)].map((o) => name.get(o)!).filter((r) => restorable.has(r));
  const arr = (names: string[]) => `ARRAY[${names.map(lit).join(', ')}]::text[]`;
  const body: string[] = [];
  // 1. Seeded tables a test changed: emptied first, so that no seeded row still points at a row
  // about to be deleted; refilled last (step 3), once what they may reference is back.
  for (const c of copies)
    body.push(`SELECT count(*) <> ${Number(c.rows)} OR coalesce(bool_or(age(xmin) < age(ftdb_watermark)), false) INTO changed FROM ${c.t};
  IF changed THEN restore := restore || ${arr([c.t, ...cascaded(c.t)])}; END IF;`);
  if (copies.length) {
    // The CASCADE also empties the other tables that point at them: say so when they had rows.
    const reach = new Map<string, string[]>();
    for (const c of copies)
      for (const o of referencers(oidOf.get(c.t)!, catalog.keys))
        if (!keep.has(name.get(o)!)) reach.set(name.get(o)!, [...(reach.get(name.get(o)!) ?? []), c.t]);
    const also = [...reach].map(
      ([t, via]) => `IF restore && ${arr(via)} AND EXISTS (SELECT 1 FROM ${t}) THEN dirty := dirty || ${lit(t)}::text; END IF;`,
    );
    body.push(`IF cardinality(restore) > 0 THEN
    ${also.join('\n    ')}
    EXECUTE 'TRUNCATE ' || array_to_string(ARRAY(SELECT DISTINCT unnest(restore)), ', ') || ' CASCADE';
  END IF;`);
  }
  // 2. Everything else: rows go. Which tables hold a row is asked first, of all of them in one
  // statement: most tables of a schema are empty at a given reset, and an EXISTS statement per
  // table cost the executor's start and end each time (a reset with nothing to do on 30 tables,
  // timed by hand in a server-side loop of 2,000 calls, not a bench section: 185-192 us that way,
  // 145-151 us this way). Rows
  // deleted from children leave their parents as they were, and a count follows anyway (up to
  // BIG_TABLE_ROWS + 1), so a table emptied since by a cascade is left be.
  const candidates = [...ordered, ...truncated].map((o) => name.get(o)!).filter((t) => !keep.has(t));
  if (candidates.length)
    body.push(
      `SELECT coalesce(array_agg(t), '{}') INTO nonempty FROM (${candidates.map((t) => `SELECT ${lit(t)}::text AS t WHERE EXISTS (SELECT 1 FROM ${t})`).join(' UNION ALL ')}) s;`,
    );
  for (const oid of ordered) {
    const t = name.get(oid)!;
    if (keep.has(t)) continue;
    body.push(`IF ${lit(t)} = ANY(nonempty) THEN SELECT count(*) INTO n FROM (SELECT 1 FROM ${t} LIMIT ${BIG_TABLE_ROWS + 1}) s;
  IF n > ${BIG_TABLE_ROWS} THEN TRUNCATE ${t} CASCADE; dirty := dirty || ${lit(t)}::text; restore := restore || ${arr(cascaded(t))};
  ELSIF n > 0 THEN DELETE FROM ${t}; dirty := dirty || ${lit(t)}::text; END IF; END IF;`);
  }
  for (const oid of truncated) {
    const t = name.get(oid)!;
    if (!keep.has(t))
      body.push(
        // Asked again: a big table's TRUNCATE ... CASCADE above may have emptied it since.
        `IF ${lit(t)} = ANY(nonempty) AND EXISTS (SELECT 1 FROM ${t}) THEN cyclic := cyclic || ${lit(t)}::text; restore := restore || ${arr(cascaded(t))}; END IF;`,
      );
  }
  if (truncated.length)
    body.push(
      `IF cardinality(cyclic) > 0 THEN EXECUTE 'TRUNCATE ' || array_to_string(cyclic, ', ') || ' CASCADE'; dirty := dirty || cyclic; END IF;`,
    );
  // 3. Seeded tables back from their copies, parents before children.
  const parentsFirst = [...ordered]
    .reverse()
    .map((o) => name.get(o)!)
    .concat(truncated.map((o) => name.get(o)!));
  for (const t of parentsFirst) {
    const c = copies.find((x) => x.t === t);
    if (!c) continue;
    const cols = (catalog.columns.get(t) ?? []).join(', ');
    body.push(`IF ${lit(t)} = ANY(restore) THEN
    IF NOT ${lit(t)} = ANY(dirty) THEN dirty := dirty || ${lit(t)}::text; END IF;
    restored := restored || ${lit(t)}::text;
    INSERT INTO ${t} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM ${SEED_SCHEMA}.s${c.i};
  END IF;`);
  }
  // Rows just copied back are newer than the template's id: the next reset compares with this one.
  if (copies.length)
    body.push(
      `IF cardinality(restored) > 0 THEN PERFORM set_config('fast_test_db.seed_xid', (txid_current() % 4294967296)::text, false); END IF;`,
    );
  // Materialized views as the template had them: refreshed from the restored tables, or emptied.
  // Templates made before these were recorded say nothing of either: left as they are.
  const unpopulated = new Set(template.unpopulated ?? []);
  for (const m of template.unpopulated ? catalog.matviews : []) {
    if (unpopulated.has(m))
      body.push(`IF (SELECT relispopulated FROM pg_class WHERE oid = ${lit(m)}::regclass) THEN
    REFRESH MATERIALIZED VIEW ${m} WITH NO DATA; dirty := dirty || ${lit(m)}::text; END IF;`);
    else
      body.push(`IF cardinality(dirty) > 0 OR NOT (SELECT relispopulated FROM pg_class WHERE oid = ${lit(m)}::regclass) THEN
    REFRESH MATERIALIZED VIEW ${m}; refreshed := refreshed || ${lit(m)}::text; END IF;`);
  }
  // Large objects a test made go; the template's own cannot be put back if a test changed them.
  const los = `ARRAY[${(template.largeObjects ?? []).map((o) => Number(o)).join(', ')}]::oid[]`;
  if (template.largeObjects)
    body.push(`IF EXISTS (SELECT 1 FROM pg_largeobject_metadata WHERE oid <> ALL(${los})) THEN
    PERFORM lo_unlink(oid) FROM pg_largeobject_metadata WHERE oid <> ALL(${los}); dirty := dirty || 'pg_largeobject'::text; END IF;`);
  // pg_sequence_last_value (NULL until the first nextval) is a function call, ~40 us less than a
  // SELECT from each sequence. Unlike the tables' question, it stays one statement per sequence:
  // PL/pgSQL evaluates each as a simple expression, without the executor (30 sequences, timed by
  // hand in the server: 24 us, against 44 us as one statement).
  for (const s of catalog.sequences) {
    const last = template.sequences[s.name];
    const changed = last === undefined ? 'value IS NOT NULL' : `value IS DISTINCT FROM ${last}`;
    const restore = last === undefined ? `${s.start}, false` : `${last}, true`;
    body.push(`value := pg_sequence_last_value(${Number(s.oid)}::oid);
  IF ${changed} THEN PERFORM setval(${lit(s.name)}, ${restore}); restarted := restarted || ${lit(s.name)}::text; END IF;`);
  }
  return `CREATE OR REPLACE FUNCTION pg_temp.fast_test_db_reset() RETURNS json LANGUAGE plpgsql AS $ftdb$
#variable_conflict use_column
DECLARE n int; value bigint; changed boolean; nonempty text[] := '{}'; dirty text[] := '{}'; cyclic text[] := '{}'; restarted text[] := '{}';
  restore text[] := '{}'; restored text[] := '{}'; refreshed text[] := '{}';
  ftdb_watermark xid := coalesce(current_setting('fast_test_db.seed_xid', true), ${lit(template.seedXid ?? '0')})::xid;
BEGIN
  IF ${SIGNATURE} <> ${lit(catalog.signature)} THEN RETURN NULL; END IF;
  ${body.join('\n  ')}
  RETURN json_build_object('emptied', dirty, 'restarted', restarted, 'restored', restored || refreshed);
END $ftdb$`;
}

// Per connection, not per process (so not in src/state.ts): each goes with its connection.
const compiled = new WeakMap<PgClient, true>();

/** What each reset connection's database must go back to, read from its marker once. */
const baselines = new WeakMap<PgClient, ResetBaseline>();

/** The database `db` is connected to needs no name: reset reads it from the connection. */
export const resetter: Resetter<PgClient> = { reset: (db, _name, keep) => resetDatabase(db, keep) };

async function resetDatabase(db: PgClient, keep: readonly string[]): Promise<ResetReport> {
  let state = baselines.get(db);
  if (!state) {
    const marker = await readOwnMarker(db);
    if (!marker)
      throw new FastTestDbError(
        'NOT_OURS',
        'reset refused: this database was not created by fast-test-db',
        'reset only databases that createTestDatabase() returned',
      );
    state = {
      seeded: marker.seeded ?? keep,
      sequences: marker.sequences ?? {},
      seedRows: marker.seedRows,
      seedXid: marker.seedXid,
      unpopulated: marker.unpopulated,
      largeObjects: marker.largeObjects,
    };
    baselines.set(db, state);
  }
  return resetPostgres(db, state);
}

/** Once per process and kind: what reset() cannot give back here, and that recreate() does. */
function warnUnrestorable(catalog: Catalog, template: ResetBaseline): void {
  const say = (kind: string, text: string) => {
    if (resetWarningsShown.has(kind)) return;
    resetWarningsShown.add(kind);
    process.emitWarning(`fast-test-db: ${text}; recreate() gives the template's exact state`, { code: kind });
  };
  if (!catalog.silenceTriggers && catalog.triggers.length)
    say(
      'FAST_TEST_DB_RESET_TRIGGERS',
      `reset() may fire ${catalog.triggers.length === 1 ? 'the trigger' : 'the triggers'} ${catalog.triggers.slice(0, 3).join(', ')}${catalog.triggers.length > 3 ? ', …' : ''} while it empties and refills tables: this user may not set session_replication_role (a superuser may, or GRANT SET ON PARAMETER session_replication_role)`,
    );
  if (template.largeObjects?.length)
    say(
      'FAST_TEST_DB_RESET_LARGE_OBJECTS',
      `reset() removes the large objects a test made, but cannot undo a change to the template's own ${template.largeObjects.length}`,
    );
}

async function resetPostgres(db: PgClient, template: ResetBaseline): Promise<ResetReport> {
  const started = performance.now();
  for (let attempt = 0; attempt < 2; attempt++) {
    if (!compiled.has(db)) {
      const catalog = await readCatalog(db);
      warnUnrestorable(catalog, template);
      await db.query(compile(catalog, template));
      // The restore is ours, not the application's: the user's triggers (an audit log, a counter
      // elsewhere) must not fire on it. For the session (see the top of this file), which is ours.
      if (catalog.silenceTriggers) await db.query(`SET session_replication_role = replica`);
      compiled.set(db, true);
    }
    await pausePoint('reset');
    // A failure (the statement is atomic: nothing was reset) may come from a table or sequence
    // dropped or renamed since the function was made: compiled again once, then it is thrown.
    const rows = await db
      .query<{ report: { emptied: string[]; restarted: string[]; restored: string[] } | null }>(
        `SELECT pg_temp.fast_test_db_reset() AS report`,
      )
      .catch((e: unknown) => {
        if (attempt > 0) throw e;
        return [];
      });
    const report = rows[0]?.report;
    if (report) return { ...report, ms: performance.now() - started };
    compiled.delete(db); // the schema changed since the function was made
  }
  throw new FastTestDbError(
    'QUERY_FAILED',
    'reset could not settle on the schema: it changed while resetting',
    'run reset() when no migration is running',
  );
}

/** What a template holds that reset() must give back: its seeded tables and its sequences' values. */
export async function readResetBaseline(db: PgClient): Promise<ResetBaseline> {
  const tables = await db.query<{ name: string }>(`
    SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relpersistence <> 't' AND ${USER_SCHEMAS}`);
  const probe = tables.map((t) => `SELECT ${lit(t.name)} AS name WHERE EXISTS (SELECT 1 FROM ${t.name})`).join(' UNION ALL ');
  const seeded = probe ? (await db.query<{ name: string }>(probe)).map((r) => r.name) : [];
  const sequences = await db.query<{ name: string; last: string | null }>(`
    SELECT format('%I.%I', schemaname, sequencename)::regclass::text AS name, last_value::text AS last FROM pg_sequences
    WHERE last_value IS NOT NULL AND schemaname NOT IN ('pg_catalog', 'information_schema')`);
  const unpopulated = await db.query<{ name: string }>(`
    SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'm' AND NOT c.relispopulated AND ${USER_SCHEMAS}`);
  const largeObjects = await db.query<{ oid: string }>(`SELECT oid::text AS oid FROM pg_largeobject_metadata ORDER BY oid`);
  return {
    seeded,
    sequences: Object.fromEntries(sequences.map((s) => [s.name, s.last!])),
    unpopulated: unpopulated.map((m) => m.name),
    largeObjects: largeObjects.map((o) => o.oid),
  };
}

/**
 * Copies of the seeded tables inside the template (cloned with it), their row counts, and a
 * transaction id newer than all their rows: what reset() needs to put them back.
 */
export async function snapshotSeeded(
  db: PgClient,
  seeded: readonly string[],
  unlogged: boolean,
): Promise<Pick<ResetBaseline, 'seedRows' | 'seedXid'>> {
  if (seeded.length === 0) return {};
  const table = unlogged ? 'UNLOGGED TABLE' : 'TABLE';
  await db.query(
    `CREATE SCHEMA ${SEED_SCHEMA}; ${seeded.map((t, i) => `CREATE ${table} ${SEED_SCHEMA}.s${i} AS SELECT * FROM ${t}`).join('; ')}`,
  );
  const counts = await db.query<{ name: string; n: number }>(
    seeded.map((t) => `SELECT ${lit(t)} AS name, count(*)::int AS n FROM ${t}`).join(' UNION ALL '),
  );
  const [xid] = await db.query<{ x: string }>(`SELECT (txid_current() % 4294967296)::text AS x`);
  return { seedRows: Object.fromEntries(counts.map((c) => [c.name, c.n])), seedXid: xid!.x };
}
