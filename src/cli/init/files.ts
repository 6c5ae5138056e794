/**
 * The project's files as init reads them: found by name under the project (never node_modules or
 * build output), each read once, with `where()` giving the `file:line` of a match for the report.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', '.next', 'out', '.turbo', '.cache', 'generated']);
const MAX_FILES = 5000;

/** A fact init found, and where: `file:line`, or `file`. */
export interface Found<T> {
  value: T;
  from: string;
}

export class ProjectFiles {
  private readonly cache = new Map<string, string | undefined>();
  private listed: string[] | undefined;

  constructor(readonly dir: string) {}

  /** A file's text by its path relative to the project, or undefined when it is not there. */
  read(rel: string): string | undefined {
    if (!this.cache.has(rel)) {
      const abs = join(this.dir, rel);
      this.cache.set(rel, existsSync(abs) && statSync(abs).isFile() ? readFileSync(abs, 'utf8') : undefined);
    }
    return this.cache.get(rel);
  }

  exists(rel: string): boolean {
    return existsSync(join(this.dir, rel));
  }

  isDir(rel: string): boolean {
    const abs = join(this.dir, rel);
    return existsSync(abs) && statSync(abs).isDirectory();
  }

  /** The first of `names` that exists. */
  first(names: readonly string[]): string | undefined {
    return names.find((n) => this.read(n) !== undefined);
  }

  /** Every file of the project (relative paths, sorted), skipping dependencies and build output. */
  all(): string[] {
    if (this.listed) return this.listed;
    const out: string[] = [];
    const walk = (abs: string, depth: number) => {
      if (depth > 8 || out.length >= MAX_FILES) return;
      for (const e of readdirSync(abs, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
        if (e.isDirectory()) {
          if (!SKIP.has(e.name) && !(e.name.startsWith('.') && e.name !== '.github' && e.name !== '.circleci'))
            walk(join(abs, e.name), depth + 1);
        } else if (e.isFile()) out.push(relative(this.dir, join(abs, e.name)));
      }
    };
    walk(this.dir, 0);
    this.listed = out;
    return out;
  }

  /** `file:line` of the character at `index` of `file`'s text. */
  where(file: string, index: number): string {
    const text = this.read(file) ?? '';
    return `${file}:${text.slice(0, index).split('\n').length}`;
  }

  /** `file:line` of the first line matching `pattern`, else the file alone. */
  whereMatch(file: string, pattern: RegExp): string {
    const text = this.read(file) ?? '';
    const m = pattern.exec(text);
    return m ? this.where(file, m.index) : file;
  }
}

/** Code files: what the app and its tests are written in. */
export const CODE = /\.[cm]?[jt]sx?$/;
/** Test files and the modules beside them (test/, tests/, __tests__, e2e/, *.test.*, *.spec.*). */
export const TEST_FILE = /(^|\/)(test|tests|__tests__|e2e|spec)\/|\.(test|spec|e2e-spec|e2e)\.[cm]?[jt]sx?$/;
