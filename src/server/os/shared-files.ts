/**
 * Files and folders that other processes of ours read, write and remove while we look: JSON read
 * whole or not at all, written whole and renamed into place, folders listed as they are now.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A JSON file another process may be writing or removing: undefined when absent or unreadable. */
export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Written whole and renamed into place: a reader in another process never sees half of it. For our
 * uid only: some (a runner's handoff) hold a server's password.
 */
export function writeJson(file: string, value: unknown): void {
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(value), { mode: 0o600 });
  renameSync(partial, file);
}

/** The names in a folder another process may be removing as we look: none once it is gone. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
