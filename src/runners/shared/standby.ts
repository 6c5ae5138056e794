/**
 * An admin connection the run's main process opens once its workers' databases are cloned ahead,
 * and keeps idle until the run ends: the end of a run then drops its databases without a new
 * connection on its critical path (a connection costs 10-15 ms: a backend to start, a login).
 * The socket is unreferenced while idle, so it never keeps the runner's process alive, and a
 * connection that the server closed meanwhile (a restart, `fast-test-db stop`) only means the
 * job is done again on a new one.
 */
import type { Connector, SqlClient } from '../../engines/engine.js';
import { withClient } from '../../engines/connect.js';
import type { ServerInfo } from '../../types.js';

export interface Standby {
  /** Runs `fn` on the held connection, or on a new one if there is none or it failed; `fn` may run twice. */
  run<T>(fn: (admin: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens the connection once `after` settles; `after` never rejects (the clones ahead). */
export function standby(connector: Connector, server: ServerInfo, after: Promise<void>): Standby {
  let held: Promise<SqlClient | undefined> | undefined = after.then(() =>
    connector.connect(server).then(
      (c) => (c.hold(false), c),
      () => undefined,
    ),
  );
  const drop = async () => {
    const c = await held;
    held = undefined;
    // Held while it closes: an unreferenced socket is no reason to wait, and a runner's main
    // process with nothing else to wait for would exit here, before its teardown ends.
    c?.hold(true);
    await c?.close();
  };
  return {
    async run(fn) {
      const c = await held;
      if (c) {
        c.hold(true);
        try {
          const result = await fn(c);
          c.hold(false);
          return result;
        } catch {
          // Whatever failed, the connection or the job, is tried once more on a connection of its own.
          await drop();
        }
      }
      return withClient(connector, server, fn);
    },
    close: drop,
  };
}
