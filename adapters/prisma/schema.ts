import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FastTestDbError } from '../../src/adapter-kit.js';
/**
 * Reads what a Prisma schema says about an INSERT and a generated client does not tell at run
 * time: @id/@@id, @default, @updatedAt, optional and list markers, native types, enum value @map
 * names, @@schema for Prisma 6, and the datasource provider (needed before any client exists, to
 * start the right server). Names, kinds, types and @map/@@map/@@schema come from the client's runtime data model
 * (runtime-model.ts). Prisma's own reader (getDMMF) is not installed with `prisma` or
 * `@prisma/client`: test/adapters/prisma/runtime-model.test.ts pins that. This is a reader for schema text,
 * not a validator: the schema has already passed `prisma generate`.
 */

export type DefaultSpec = { kind: 'value'; value: DefaultArg } | { kind: 'fn'; name: string; args: DefaultArg[] };

export type DefaultArg = string | number | boolean | { ident: string } | DefaultArg[] | { call: string; args: DefaultArg[] };

/** A field's attributes, as only the schema text says them. */
export interface FieldAttributes {
  optional: boolean;
  list: boolean;
  isId: boolean;
  updatedAt: boolean;
  default?: DefaultSpec;
  /** `@db.X(args)` without the `@db.` prefix, e.g. `Timestamptz(3)`. */
  nativeType?: string;
}

export interface PrismaField extends FieldAttributes {
  name: string;
  /** Column name (@map) or the field name. */
  dbName: string;
  /** Scalar type (Int, String, ...), enum name, or related model name. */
  type: string;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
}

export interface PrismaModel {
  name: string;
  dbName: string;
  /** Multi-schema projects: @@schema("name"). */
  schema?: string;
  fields: PrismaField[];
  /** Field names of the primary key (@id or @@id). */
  primaryKey: string[];
}

export interface PrismaEnum {
  name: string;
  /** value name -> database value (@map). */
  values: Map<string, string>;
}

/** The schema fastInsert plans from: the client's runtime data model completed by the text. */
export interface PrismaSchema {
  provider: string;
  models: Map<string, PrismaModel>;
  enums: Map<string, PrismaEnum>;
}

export interface ModelText {
  primaryKey: string[];
  /** @@schema is read here too: Prisma 6's runtime data model (engineType "client") drops it. */
  schema?: string;
  fields: Map<string, FieldAttributes>;
}

/** What the schema text alone contributes (see runtime-model.ts for the rest). */
export interface PrismaSchemaText {
  provider: string;
  models: Map<string, ModelText>;
  enums: Map<string, PrismaEnum>;
}

/** Drops `//` comments that are not inside a string literal. */
function stripComment(line: string): string {
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '/' && line[i + 1] === '/') return line.slice(0, i);
  }
  return line;
}

/** Joins physical lines while parentheses or brackets are still open (multi-line attribute arguments). */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  let depth = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = stripComment(raw);
    pending = pending ? `${pending} ${line.trim()}` : line.trim();
    depth = 0;
    let inString = false;
    for (let i = 0; i < pending.length; i++) {
      const c = pending[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
    }
    if (depth <= 0) {
      if (pending) out.push(pending);
      pending = '';
    }
  }
  if (pending) out.push(pending);
  return out;
}

/** A small recursive reader for attribute arguments: literals, identifiers, lists, calls. */
class ArgReader {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws() {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  /** Parses `a, name: b, ...` up to the closing `)`; named arguments keep only their value. */
  list(close: string): Array<{ name?: string; value: DefaultArg }> {
    const out: Array<{ name?: string; value: DefaultArg }> = [];
    this.ws();
    if (this.s[this.i] === close) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      let name: string | undefined;
      const m = /^([A-Za-z_][\w]*)\s*:/.exec(this.s.slice(this.i));
      if (m) {
        name = m[1];
        this.i += m[0].length;
      }
      out.push({ name, value: this.value() });
      this.ws();
      const c = this.s[this.i++];
      if (c === close) return out;
      if (c !== ',') throw new Error(`unexpected ${JSON.stringify(c)} in ${this.s}`);
    }
  }

  value(): DefaultArg {
    this.ws();
    const c = this.s[this.i];
    if (c === '"') {
      let j = this.i + 1;
      let text = '';
      while (j < this.s.length && this.s[j] !== '"') {
        if (this.s[j] === '\\') {
          const n = this.s[j + 1];
          text += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
          j += 2;
        } else text += this.s[j++];
      }
      this.i = j + 1;
      return text;
    }
    if (c === '[') {
      this.i++;
      return this.list(']').map((a) => a.value);
    }
    const num = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    const id = /^[A-Za-z_][\w.]*/.exec(this.s.slice(this.i));
    if (!id) throw new Error(`cannot read argument at ${JSON.stringify(this.s.slice(this.i))}`);
    this.i += id[0].length;
    this.ws();
    if (this.s[this.i] === '(') {
      this.i++;
      return { call: id[0], args: this.list(')').map((a) => a.value) };
    }
    if (id[0] === 'true' || id[0] === 'false') return id[0] === 'true';
    return { ident: id[0] };
  }

  get pos() {
    return this.i;
  }
}

interface Attribute {
  name: string;
  args: Array<{ name?: string; value: DefaultArg }>;
  /** Raw argument text, for native types. */
  raw: string;
}

/** Reads `@a @b(x) @db.VarChar(10)` (or `@@...`) from the rest of a line. */
function readAttributes(text: string): Attribute[] {
  const out: Attribute[] = [];
  let rest = text.trim();
  while (rest.length) {
    const m = /^@{1,2}([A-Za-z_][\w.]*)/.exec(rest);
    if (!m) break;
    rest = rest.slice(m[0].length);
    let args: Attribute['args'] = [];
    let raw = '';
    if (rest.startsWith('(')) {
      const reader = new ArgReader(rest.slice(1));
      args = reader.list(')');
      raw = rest.slice(1, reader.pos);
      rest = rest.slice(1 + reader.pos);
    }
    out.push({ name: m[1]!, args, raw });
    rest = rest.trim();
  }
  return out;
}

function str(v: DefaultArg | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function toDefault(v: DefaultArg): DefaultSpec {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'call' in v) return { kind: 'fn', name: v.call, args: v.args };
  return { kind: 'value', value: v };
}

export function parsePrismaSchema(text: string): PrismaSchemaText {
  const schema: PrismaSchemaText = { provider: '', models: new Map(), enums: new Map() };
  const lines = logicalLines(text);
  type Block = { type: string; name: string; body: string[] };
  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const line of lines) {
    if (!current) {
      const m = /^(model|enum|view|type|generator|datasource)\s+(\w+)\s*\{$/.exec(line);
      if (m) current = { type: m[1]!, name: m[2]!, body: [] };
      continue;
    }
    if (line === '}') {
      blocks.push(current);
      current = undefined;
    } else current.body.push(line);
  }
  for (const b of blocks) {
    try {
      if (b.type === 'datasource') {
        for (const l of b.body) {
          const m = /^provider\s*=\s*"([^"]+)"/.exec(l);
          if (m) schema.provider = m[1]!;
        }
      } else if (b.type === 'enum') {
        const en: PrismaEnum = { name: b.name, values: new Map() };
        for (const l of b.body) {
          if (l.startsWith('@@')) continue;
          const m = /^(\w+)\s*(.*)$/.exec(l);
          if (!m) continue;
          const map = readAttributes(m[2]!).find((a) => a.name === 'map');
          en.values.set(m[1]!, str(map?.args[0]?.value) ?? m[1]!);
        }
        schema.enums.set(en.name, en);
      } else if (b.type === 'model' || b.type === 'view') {
        const model: ModelText = { primaryKey: [], fields: new Map() };
        for (const l of b.body) {
          if (l.startsWith('@@')) {
            for (const a of readAttributes(l)) {
              if (a.name === 'schema') model.schema = str(a.args[0]?.value);
              else if (a.name === 'id') {
                const fields = a.args.find((x) => x.name === undefined || x.name === 'fields')?.value;
                if (Array.isArray(fields))
                  model.primaryKey = fields.map((f) =>
                    typeof f === 'object' && f && 'ident' in f ? f.ident : typeof f === 'object' && f && 'call' in f ? f.call : String(f),
                  );
              }
            }
            continue;
          }
          const m = /^(\w+)\s+(Unsupported\("(?:[^"\\]|\\.)*"\)|[\w.]+)(\[\])?(\?)?\s*(.*)$/.exec(l);
          if (!m) continue;
          const [, name, , list, opt, rest] = m;
          const field: FieldAttributes = { optional: !!opt, list: !!list, isId: false, updatedAt: false };
          for (const a of readAttributes(rest!)) {
            if (a.name === 'id') field.isId = true;
            else if (a.name === 'updatedAt') field.updatedAt = true;
            else if (a.name === 'default') {
              const v = a.args.find((x) => x.name === undefined || x.name === 'value')?.value;
              if (v !== undefined) field.default = toDefault(v);
            } else if (a.name.startsWith('db.')) field.nativeType = a.name.slice(3) + (a.raw ? `(${a.raw})` : '');
          }
          if (field.isId) model.primaryKey = [name!];
          model.fields.set(name!, field);
        }
        schema.models.set(b.name, model);
      }
    } catch (e) {
      throw new FastTestDbError(
        'UNSUPPORTED',
        `could not read ${b.type} ${b.name} of the Prisma schema: ${(e as Error).message}`,
        'please report the schema lines; meanwhile use prisma.<model>.create() for this model',
        { cause: e },
      );
    }
  }
  return schema;
}

/** The schema's text: the file, or every *.prisma file of the folder (migrations left out), in name order. */
export function readSchemaText(path: string): string {
  if (!existsSync(path))
    throw new FastTestDbError(
      'BAD_OPTION',
      `Prisma schema ${path} does not exist`,
      'pass schema: the path of schema.prisma (or of the folder holding *.prisma files)',
    );
  if (!statSync(path).isDirectory()) return readFileSync(path, 'utf8');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        if (n !== 'migrations') walk(p);
      } else if (n.endsWith('.prisma')) files.push(p);
    }
  };
  walk(path);
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}
