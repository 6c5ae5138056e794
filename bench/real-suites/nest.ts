/**
 * Shape (n): a NestJS-style e2e suite under Jest and ts-jest. No NestJS is installed here, so the
 * suite carries the part of it whose cost a Nest e2e file pays: a DI container that reads
 * constructor types from decorator metadata and builds the app module's graph in each file's
 * beforeAll (a database module with a TypeORM DataSource factory, feature modules each with an
 * entity, a repository over TypeORM, a service depending on the feature before it and a
 * controller), an HTTP server on port 0, and tests that call it over HTTP as supertest does. The
 * schema is the app's migrations (SQL), run once per run: by the plain config's global setup, by
 * fast-test-db's migrate.
 */
import { jestBase, markModule, pad, put, tsJestConfig } from './write.js';

const table = (k: number) => `thing_${pad(k)}`;

function schema(features: number): string {
  return Array.from(
    { length: features },
    (_, k) =>
      `CREATE TABLE IF NOT EXISTS ${table(k)} (id serial PRIMARY KEY, name varchar(160) NOT NULL UNIQUE, amount int NOT NULL, parent_id int${
        k > 0 ? ` REFERENCES ${table(k - 1)}(id)` : ''
      }, created_at timestamptz NOT NULL DEFAULT now());\nCREATE INDEX IF NOT EXISTS ${table(k)}_parent ON ${table(k)} (parent_id);`,
  ).join('\n');
}

const DI = `import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

type Ctor = new (...args: any[]) => any;
export type Token = string | symbol | Ctor;
export type Provider = Ctor | { provide: Token; useValue: unknown } | { provide: Token; useFactory: (...a: any[]) => unknown; inject?: Token[] };
export interface ModuleMeta { imports?: Ctor[]; providers?: Provider[]; controllers?: Ctor[]; exports?: Token[] }
export interface Request { params: Record<string, string>; query: Record<string, string>; body: any }

const MODULE = Symbol('module');
const INJECT = Symbol('inject');
const ROUTES = Symbol('routes');
const PREFIX = Symbol('prefix');

export const Module = (meta: ModuleMeta): ClassDecorator => (t) => Reflect.defineMetadata(MODULE, meta, t);
// A decorator on the class is what makes TypeScript emit design:paramtypes for its constructor.
export const Injectable = (): ClassDecorator => () => undefined;
export const Inject = (token: Token): ParameterDecorator => (t, _k, i) => {
  const m = { ...(Reflect.getOwnMetadata(INJECT, t) ?? {}), [i]: token };
  Reflect.defineMetadata(INJECT, m, t);
};
export const Controller = (prefix: string): ClassDecorator => (t) => Reflect.defineMetadata(PREFIX, prefix, t);
const route = (method: string) => (path: string): MethodDecorator => (t, key) => {
  const list = Reflect.getOwnMetadata(ROUTES, t.constructor) ?? [];
  Reflect.defineMetadata(ROUTES, [...list, { method, path, key }], t.constructor);
};
export const Get = route('GET');
export const Post = route('POST');

export class HttpError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export class TestingModule {
  private readonly instances = new Map<Token, unknown>();
  constructor(private readonly providers: Map<Token, Provider>, readonly controllers: Ctor[]) {}
  async init(): Promise<this> {
    for (const token of this.providers.keys()) await this.resolve(token);
    for (const c of this.controllers) await this.resolve(c);
    for (const v of this.instances.values()) await (v as { onModuleInit?: () => unknown })?.onModuleInit?.();
    return this;
  }
  get<T>(token: Token): T {
    if (!this.instances.has(token)) throw new Error('no provider for ' + String(token));
    return this.instances.get(token) as T;
  }
  private async resolve(token: Token): Promise<unknown> {
    if (this.instances.has(token)) return this.instances.get(token);
    const p = this.providers.get(token) ?? (this.controllers.includes(token as Ctor) ? (token as Ctor) : undefined);
    if (!p) throw new Error('cannot resolve ' + String(token));
    let value: unknown;
    if (typeof p === 'function') {
      const types: Token[] = Reflect.getMetadata('design:paramtypes', p) ?? [];
      const named = Reflect.getOwnMetadata(INJECT, p) ?? {};
      const args = [];
      for (let i = 0; i < types.length; i++) args.push(await this.resolve(named[i] ?? types[i]));
      value = new p(...args);
    } else if ('useValue' in p) value = p.useValue;
    else value = await p.useFactory(...(await Promise.all((p.inject ?? []).map((t) => this.resolve(t)))));
    this.instances.set(token, value);
    return value;
  }
  createApp(): App {
    return new App(this);
  }
  async close(): Promise<void> {
    for (const v of [...this.instances.values()].reverse()) await (v as { onModuleDestroy?: () => unknown })?.onModuleDestroy?.();
  }
}

export const Test = {
  createTestingModule(meta: ModuleMeta) {
    return {
      async compile(): Promise<TestingModule> {
        const providers = new Map<Token, Provider>();
        const controllers: Ctor[] = [];
        const seen = new Set<Ctor>();
        const walk = (m: ModuleMeta) => {
          for (const i of m.imports ?? []) {
            if (seen.has(i)) continue;
            seen.add(i);
            walk(Reflect.getOwnMetadata(MODULE, i) ?? {});
          }
          for (const p of m.providers ?? []) providers.set(typeof p === 'function' ? p : p.provide, p);
          controllers.push(...(m.controllers ?? []));
        };
        walk(meta);
        return new TestingModule(providers, controllers).init();
      },
    };
  },
};

interface Route { method: string; parts: string[]; handler: (req: Request) => unknown }

export class App {
  private server?: Server;
  private readonly routes: Route[] = [];
  constructor(private readonly module: TestingModule) {
    for (const c of module.controllers) {
      const prefix: string = Reflect.getOwnMetadata(PREFIX, c) ?? '';
      const instance = module.get<Record<string | symbol, (req: Request) => unknown>>(c);
      for (const r of Reflect.getOwnMetadata(ROUTES, c) ?? [])
        this.routes.push({ method: r.method, parts: [prefix, ...r.path.split('/')].filter(Boolean), handler: (req) => instance[r.key](req) });
    }
  }
  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.parts.length !== parts.length) continue;
      const params: Record<string, string> = {};
      if (route.parts.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = decodeURIComponent(parts[i]!)), true) : p === parts[i])))
        return { route, params };
    }
    return undefined;
  }
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url ?? '/', 'http://app');
    const found = this.match(req.method ?? 'GET', url.pathname);
    let status = 200;
    let body: unknown;
    try {
      if (!found) throw new HttpError(404, 'no route');
      body = await found.route.handler({ params: found.params, query: Object.fromEntries(url.searchParams), body: raw ? JSON.parse(raw) : {} });
      if (req.method === 'POST') status = 201;
    } catch (e) {
      status = e instanceof HttpError ? e.status : 500;
      body = { message: (e as Error).message };
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? null));
  }
  listen(port: number): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    return new Promise((ok) => this.server!.listen(port, '127.0.0.1', () => ok('http://127.0.0.1:' + (this.server!.address() as { port: number }).port)));
  }
  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((ok) => (this.server ? this.server.close(ok) : ok(undefined)));
    await this.module.close();
  }
}
`;

const VALIDATE = `import { HttpError } from './di';

type Rule = { key: string; check: (v: unknown) => boolean; message: string };
const RULES = Symbol('rules');
const OPTIONAL = Symbol('optional');
const rule = (check: (v: unknown) => boolean, message: string): PropertyDecorator => (t, key) => {
  const list: Rule[] = Reflect.getOwnMetadata(RULES, t.constructor) ?? [];
  Reflect.defineMetadata(RULES, [...list, { key: String(key), check, message }], t.constructor);
};
export const IsString = () => rule((v) => typeof v === 'string' && v.length > 0, 'must be a non-empty string');
export const IsInt = () => rule((v) => Number.isInteger(v), 'must be an integer');
export const Min = (n: number) => rule((v) => typeof v === 'number' && v >= n, 'must be at least ' + n);
export const IsOptional = (): PropertyDecorator => (t, key) => {
  Reflect.defineMetadata(OPTIONAL, [...(Reflect.getOwnMetadata(OPTIONAL, t.constructor) ?? []), String(key)], t.constructor);
};

/** class-validator's validate and class-transformer's plainToInstance, in the small. */
export function validated<T>(cls: new () => T, body: any): T {
  const rules: Rule[] = Reflect.getOwnMetadata(RULES, cls) ?? [];
  const optional: string[] = Reflect.getOwnMetadata(OPTIONAL, cls) ?? [];
  const bad = rules.filter((r) => !(body?.[r.key] === undefined && optional.includes(r.key)) && !r.check(body?.[r.key]));
  if (bad.length) throw new HttpError(400, bad.map((r) => r.key + ' ' + r.message).join(', '));
  return Object.assign(new cls() as object, body) as T;
}
`;

const HTTP_CLIENT = `import { request as send } from 'node:http';

/** supertest in the small: one request to the app, its status and JSON body. */
export function request(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((ok, fail) => {
    const req = send(base + path, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      let raw = '';
      res.on('data', (d) => (raw += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : undefined }));
    });
    req.on('error', fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
`;

function feature(k: number): Record<string, string> {
  const n = pad(k);
  const E = `Thing${n}`;
  const prev = k > 0 ? `Thing${pad(k - 1)}` : undefined;
  return {
    [`src/features/f${n}/entity.ts`]: `import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
@Entity('${table(k)}')
export class ${E} {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 160, unique: true }) name!: string;
  @Column({ type: 'int' }) amount!: number;
  @Column({ type: 'int', name: 'parent_id', nullable: true }) parentId!: number | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
`,
    [`src/features/f${n}/dto.ts`]: `import { IsInt, IsOptional, IsString, Min } from '../../core/validate';
export class Create${E}Dto {
  @IsString() name!: string;
  @IsInt() @Min(0) amount!: number;
  @IsOptional() @IsInt() parentId?: number;
}
export interface ${E}View { id: number; name: string; amount: number; parentId: number | null; label: string }
export function present${n}(x: { id: number; name: string; amount: number; parentId: number | null }): ${E}View {
  return { id: x.id, name: x.name, amount: x.amount, parentId: x.parentId, label: x.name.toUpperCase() + ' (' + (x.amount / 100).toFixed(2) + ')' };
}
`,
    [`src/features/f${n}/repository.ts`]: `import { DataSource, Like, type Repository } from 'typeorm';
import { Inject, Injectable } from '../../core/di';
import { DATA_SOURCE } from '../../database/database.module';
import { ${E} } from './entity';
@Injectable()
export class ${E}Repository {
  private readonly repo: Repository<${E}>;
  constructor(@Inject(DATA_SOURCE) ds: DataSource) {
    this.repo = ds.getRepository(${E});
  }
  insert(values: Pick<${E}, 'name' | 'amount' | 'parentId'>): Promise<${E}> {
    return this.repo.save(this.repo.create(values));
  }
  findById(id: number): Promise<${E} | null> {
    return this.repo.findOneBy({ id });
  }
  findByPrefix(prefix: string): Promise<${E}[]> {
    return this.repo.find({ where: { name: Like(prefix + '%') }, order: { id: 'ASC' } });
  }
  async sumAmount(prefix: string): Promise<number> {
    const r = await this.repo.createQueryBuilder('t').select('COALESCE(SUM(t.amount), 0)', 'total').where('t.name LIKE :p', { p: prefix + '%' }).getRawOne();
    return Number(r.total);
  }
}
`,
    [`src/features/f${n}/service.ts`]: `import { HttpError, Injectable } from '../../core/di';
import { validated } from '../../core/validate';
${prev ? `import { ${prev}Service } from '../f${pad(k - 1)}/service';\n` : ''}import { Create${E}Dto, present${n}, type ${E}View } from './dto';
import { ${E}Repository } from './repository';
@Injectable()
export class ${E}Service {
  constructor(private readonly repo: ${E}Repository${prev ? `, private readonly parents: ${prev}Service` : ''}) {}
  async create(body: unknown): Promise<${E}View> {
    const dto = validated(Create${E}Dto, body);
    ${prev ? 'if (dto.parentId !== undefined) await this.parents.get(dto.parentId);' : "if (dto.parentId !== undefined) throw new HttpError(400, 'no parent here');"}
    return present${n}(await this.repo.insert({ name: dto.name, amount: dto.amount, parentId: dto.parentId ?? null }));
  }
  async get(id: number): Promise<${E}View> {
    const x = await this.repo.findById(id);
    if (!x) throw new HttpError(404, '${E} ' + id + ' not found');
    return present${n}(x);
  }
  async list(prefix: string): Promise<${E}View[]> {
    return (await this.repo.findByPrefix(prefix)).map(present${n});
  }
  total(prefix: string): Promise<number> {
    return this.repo.sumAmount(prefix);
  }
}
`,
    [`src/features/f${n}/controller.ts`]: `import { Controller, Get, Post, type Request } from '../../core/di';
import { ${E}Service } from './service';
@Controller('things${n}')
export class ${E}Controller {
  constructor(private readonly service: ${E}Service) {}
  @Post('') create(req: Request) {
    return this.service.create(req.body);
  }
  @Get('total/:prefix') async total(req: Request) {
    return { total: await this.service.total(req.params.prefix!) };
  }
  @Get(':id') get(req: Request) {
    return this.service.get(Number(req.params.id));
  }
  @Get('') list(req: Request) {
    return this.service.list(req.query.prefix ?? '');
  }
}
`,
    [`src/features/f${n}/module.ts`]: `import { Module } from '../../core/di';
import { DatabaseModule } from '../../database/database.module';
${prev ? `import { ${prev}Module } from '../f${pad(k - 1)}/module';\n` : ''}import { ${E}Controller } from './controller';
import { ${E}Repository } from './repository';
import { ${E}Service } from './service';
@Module({ imports: [DatabaseModule${prev ? `, ${prev}Module` : ''}], providers: [${E}Repository, ${E}Service], controllers: [${E}Controller], exports: [${E}Service] })
export class ${E}Module {}
`,
  };
}

/** The eight tests of file f, spread over the features: create and read, validation, 404, list, totals, parent links. */
function tests(f: number, features: number): string {
  return Array.from({ length: 8 }, (_, t) => {
    const k = (f * 3 + t) % features;
    const n = pad(k);
    const path = `/things${n}`;
    const name = `tag + '-${t}'`;
    switch (t % 4) {
      case 0:
        return `  it('creates a thing of feature ${n} and reads it back', async () => {
    const made = await request(base, 'POST', '${path}', { name: ${name}, amount: 1250 });
    expect(made.status).toBe(201);
    const got = await request(base, 'GET', '${path}/' + made.body.id);
    expect(got.body).toMatchObject({ name: ${name}, amount: 1250, label: (${name}).toUpperCase() + ' (12.50)' });
  });`;
      case 1:
        return `  it('rejects an invalid body and a missing id on feature ${n}', async () => {
    expect((await request(base, 'POST', '${path}', { name: '', amount: -1 })).status).toBe(400);
    expect((await request(base, 'GET', '${path}/987654321')).status).toBe(404);
  });`;
      case 2:
        return `  it('lists and totals the things of feature ${n} by prefix', async () => {
    for (const amount of [100, 200, 300]) expect((await request(base, 'POST', '${path}', { name: ${name} + '-' + amount, amount })).status).toBe(201);
    const list = await request(base, 'GET', '${path}?prefix=' + encodeURIComponent(${name}));
    expect(list.body.map((x: { amount: number }) => x.amount)).toEqual([100, 200, 300]);
    expect((await request(base, 'GET', '${path}/total/' + encodeURIComponent(${name}))).body).toEqual({ total: 600 });
  });`;
      default:
        return k === 0
          ? `  it('refuses a parent on the first feature', async () => {
    expect((await request(base, 'POST', '${path}', { name: ${name}, amount: 1, parentId: 1 })).status).toBe(400);
  });`
          : `  it('links a thing of feature ${n} to its parent and refuses a missing one', async () => {
    const parent = await request(base, 'POST', '/things${pad(k - 1)}', { name: ${name} + '-parent', amount: 5 });
    expect((await request(base, 'POST', '${path}', { name: ${name}, amount: 7, parentId: parent.body.id })).body.parentId).toBe(parent.body.id);
    expect((await request(base, 'POST', '${path}', { name: ${name} + '-orphan', amount: 7, parentId: 987654321 })).status).toBe(404);
  });`;
    }
  }).join('\n');
}

export function writeNest(dir: string, scale: { files: number; modules?: number }): void {
  const features = scale.modules ?? 10;
  const entities = Array.from({ length: features }, (_, k) => `Thing${pad(k)}`);
  tsJestConfig(dir);
  put(dir, 'test/mark.ts', markModule('jest'));
  put(dir, 'test/request.ts', HTTP_CLIENT);
  put(dir, 'src/core/di.ts', DI);
  put(dir, 'src/core/validate.ts', VALIDATE);
  put(
    dir,
    'src/database/database.module.ts',
    `import { DataSource } from 'typeorm';
import { Module } from '../core/di';
${entities.map((e, k) => `import { ${e} } from '../features/f${pad(k)}/entity';`).join('\n')}
export const DATA_SOURCE = Symbol('DATA_SOURCE');
class DataSourceHolder {
  constructor(readonly ds: DataSource) {}
  onModuleDestroy() {
    return this.ds.destroy();
  }
}
@Module({
  providers: [
    {
      provide: DATA_SOURCE,
      // As TypeOrmModule.forRootAsync: the app's migrations made the schema, the app only connects.
      useFactory: () => new DataSource({ type: 'postgres', url: process.env.APP_DATABASE_URL, entities: [${entities.join(', ')}], synchronize: false, logging: false }).initialize(),
    },
    { provide: 'DATA_SOURCE_HOLDER', useFactory: (ds: DataSource) => new DataSourceHolder(ds), inject: [DATA_SOURCE] },
  ],
  exports: [DATA_SOURCE],
})
export class DatabaseModule {}
`,
  );
  for (let k = 0; k < features; k++) for (const [rel, text] of Object.entries(feature(k))) put(dir, rel, text);
  put(
    dir,
    'src/app.module.ts',
    `import { Module } from './core/di';
${entities.map((e, k) => `import { ${e}Module } from './features/f${pad(k)}/module';`).join('\n')}
@Module({ imports: [${entities.map((e) => `${e}Module`).join(', ')}] })
export class AppModule {}
`,
  );
  for (let f = 0; f < scale.files; f++)
    put(
      dir,
      `test/f${pad(f)}.e2e.test.ts`,
      `import './mark';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppModule } from '../src/app.module';
import { type App, Test } from '../src/core/di';
import { request } from './request';
describe('things e2e ${f}', () => {
  let app: App;
  let base: string;
  // Names are unique per run and file: on a shared database the files see each other's rows.
  const tag = 'f${f}-' + process.pid + '-' + Date.now();
  beforeAll(async () => {
    const module = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = module.createApp();
    base = await app.listen(0);
  });
  afterAll(() => app.close());
${tests(f, features)}
});
`,
    );
  const sql = JSON.stringify(schema(features));
  put(
    dir,
    'plain-global-setup.cjs',
    `// The app's own global setup: its migrations into the shared database the compose file runs.
const pg = require('pg');
module.exports = async function () {
  const c = new pg.Client(process.env.APP_DATABASE_URL);
  await c.connect();
  await c.query(${sql});
  await c.end();
};
`,
  );
  const base = jestBase('test/*.e2e.test.ts');
  put(dir, 'jest.plain.config.cjs', `module.exports = { ...${base}, globalSetup: __dirname + '/plain-global-setup.cjs' };\n`);
  put(
    dir,
    'jest.ftdb.config.cjs',
    `const pg = require('pg');
const { withFastTestDb } = require('fast-test-db/jest');
const SCHEMA = ${sql};
module.exports = withFastTestDb(${base}, {
  engine: 'postgres',
  envVar: 'APP_DATABASE_URL',
  // The migrations are a constant of the suite: the template is reused until they change.
  cacheKey: 'bench-rs-nest-' + SCHEMA.length,
  async migrate(url) {
    const c = new pg.Client(url);
    await c.connect();
    await c.query(SCHEMA);
    await c.end();
  },
});
`,
  );
}
