/**
 * The passwords of servers we own. Each server gets a random one when it starts: without it, any
 * local user could log in as its superuser over 127.0.0.1 and run programs or read files as the
 * user who runs the tests (COPY ... TO PROGRAM, load_file, INTO OUTFILE). It travels in every URL
 * we hand out, and is kept in a file only our uid may read in the server's own folder.
 *
 * This module is loaded by the keeper too: no driver, no server work.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';

/** 128 random bits in hex: nothing to quote in a URL, a shell word or an SQL literal. */
export function newPassword(): string {
  return randomBytes(16).toString('hex');
}

/** The file in a server's folder that holds its admin password (mode 0600, our uid). */
export const passwordFile = (serverDir: string) => join(serverDir, 'password');

export function writePasswordFile(serverDir: string, password: string): void {
  writeFileSync(passwordFile(serverDir), `${password}\n`, { mode: 0o600 });
}

/**
 * The password of a login made for an app that asked for none (`start --user test`): derived from
 * the server's own, so that a second `start` joining the server hands out the same URL instead of
 * changing the password under the first one, and nobody without the server's password can know it.
 */
export function loginPassword(serverPassword: string, user: string): string {
  return createHash('sha256').update(`${serverPassword}\0${user}`).digest('hex').slice(0, 32);
}

/**
 * Iterations of the SCRAM-SHA-256 key derivation. PostgreSQL's default (4096) slows down guessing a
 * password a person chose, at a few ms of CPU per TCP login on each side. Ours are 128 random bits,
 * which no number of guesses finds: a short derivation keeps a new connection as quick as before.
 */
export const SCRAM_ITERATIONS = 16;

/**
 * The SCRAM-SHA-256 secret PostgreSQL stores for `password` (RFC 5802, RFC 7677), to be given to
 * `ALTER ROLE ... PASSWORD '<secret>'`: the server stores it as it is, so the password itself never
 * appears in an SQL text that a log or a debug line might show.
 */
export function scramSecret(password: string, iterations = SCRAM_ITERATIONS, salt = randomBytes(16)): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
