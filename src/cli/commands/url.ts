/** `fast-test-db url`: the URL of the project's reused server, started if needed. */
import { parseDuration } from '../duration.js';
import { engineFor } from '../../engines/index.js';
import { COMMON_HELP, COMMON_OPTIONS, str, type Command } from '../command.js';
import { acquire, ownedRequest } from '../owned.js';
import { SERVER_HELP, SERVER_OPTIONS, serverOptions } from '../options.js';

export const urlCommand: Command = {
  name: 'url',
  summary: "print the URL of the project's reused server, starting one if needed",
  help: `Usage: fast-test-db url [options]

Prints the admin URL of the project's server and exits. When none is running, starts one that
outlives this command and stops by itself after --idle-timeout without clients. Progress goes to
stderr, so the output can be captured:

  export FAST_TEST_DB_URL=$(fast-test-db url)

Options:
${SERVER_HELP}
  --idle-timeout D  how long a server started here waits for clients, e.g. 30m (default 15m)
  --database NAME   print the URL of this database instead of the admin database
${COMMON_HELP}`,
  options: { ...COMMON_OPTIONS, ...SERVER_OPTIONS, 'idle-timeout': { type: 'string' }, database: { type: 'string' } },
  async run({ values, out, io }) {
    const idle = str(values['idle-timeout']);
    const options = { ...(await serverOptions(values, io.env)), reuse: true, idleTimeoutMs: idle ? parseDuration(idle) : undefined };
    const req = await ownedRequest(options.engine, options);
    const { server, joined } = await acquire(req, out, (joined) =>
      joined
        ? `${req.label} is running`
        : `started ${req.label}; it stops after ${idle ?? '15m'} without clients, or now with fast-test-db stop`,
    );
    const url = engineFor(server.engine).urls.url(server, str(values.database) ?? server.adminDatabase);
    out.data({ url, joined, server });
    out.line(url);
    return 0;
  },
};
