/**
 * The least a Node client can do for one prepared INSERT: a unix socket, the statement parsed
 * once, then Bind + Execute + Sync per row and a wait for ReadyForQuery, with no driver, no row
 * parsing and no queue. What it costs over pgbench is Node's own round trip (the event loop, the
 * socket's wake-up, a promise), which every JavaScript driver pays before its own work: the floor
 * under pg, postgres.js and so under fastInsert. It logs in with trust, peer or a cleartext
 * password (what the servers in this bench ask for), nothing else.
 */
import net from 'node:net';

export interface WireClient {
  /** Runs the prepared statement once with these text parameters; resolves on ReadyForQuery. */
  run(params: readonly string[]): Promise<void>;
  end(): void;
}

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const SYNC = message('S', Buffer.alloc(0));
/** Execute of the unnamed portal, no row limit. */
const EXECUTE = message('E', Buffer.from([0, 0, 0, 0, 0]));

function bind(params: readonly string[]): Buffer {
  const parts = [Buffer.from('\0ftdb_floor\0'), Buffer.from([0, 0]), Buffer.alloc(2)];
  parts[2]!.writeInt16BE(params.length);
  for (const p of params) {
    const value = Buffer.from(p);
    const len = Buffer.alloc(4);
    len.writeInt32BE(value.length);
    parts.push(len, value);
  }
  parts.push(Buffer.from([0, 0])); // results in text, default format
  return message('B', Buffer.concat(parts));
}

/** Connects to `socketDir` (the directory holding .s.PGSQL.<port>) and prepares `sql`. */
export function wireClient(
  where: { socketDir: string; port: number; user: string; password?: string; database: string },
  sql: string,
): Promise<WireClient> {
  const { socketDir, port, user, password, database } = where;
  return new Promise((resolve, reject) => {
    const socket = net.connect(`${socketDir}/.s.PGSQL.${port}`);
    let pending: Buffer = Buffer.alloc(0);
    let onReady: ((error?: Error) => void) | null = null;
    let failure: Error | undefined;
    const startup = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
    const head = Buffer.alloc(8);
    head.writeInt32BE(8 + startup.length, 0);
    head.writeInt32BE(196608, 4); // protocol 3.0
    socket.write(Buffer.concat([head, startup]));
    socket.on('error', reject);
    socket.on('close', () => onReady?.(failure ?? new Error('the server closed the connection')));
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 5) {
        const length = pending.readInt32BE(1);
        if (pending.length < length + 1) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'E')
          failure = new Error(
            `server error: ${pending
              .subarray(5, length + 1)
              .toString()
              .replace(/\0/g, ' ')}`,
          );
        if (type === 'R') {
          const code = pending.readInt32BE(5);
          if (code === 3 && password !== undefined) socket.write(message('p', Buffer.from(`${password}\0`)));
          else if (code !== 0) failure = new Error(`the wire floor cannot answer authentication request ${code}`);
        }
        pending = pending.subarray(length + 1);
        if (type === 'Z') {
          const done = onReady;
          onReady = null;
          const error = failure;
          failure = undefined;
          done?.(error);
        }
      }
    });
    const prepare = message('P', Buffer.concat([Buffer.from(`ftdb_floor\0${sql}\0`), Buffer.from([0, 0])]));
    const roundTrip = (bytes: Buffer | null) =>
      new Promise<void>((ok, fail) => {
        onReady = (error) => (error ? fail(error) : ok());
        if (bytes) socket.write(bytes);
      });
    // The startup's ReadyForQuery, then the Parse's.
    roundTrip(null)
      .then(() => roundTrip(Buffer.concat([prepare, SYNC])))
      .then(
        () =>
          resolve({
            run: (params) => roundTrip(Buffer.concat([bind(params), EXECUTE, SYNC])),
            end: () => socket.destroy(),
          }),
        (error: Error) => {
          socket.destroy();
          reject(error);
        },
      );
  });
}
