/**
 * Silent-by-default logging under the `fast-test-db:*` namespace, enabled with the same DEBUG
 * variable as the `debug` package (DEBUG=fast-test-db:* or DEBUG=fast-test-db:server,...).
 * Library code never writes to the console otherwise.
 */
const ROOT = 'fast-test-db';

function enabled(ns: string): boolean {
  const spec = process.env.DEBUG;
  if (!spec) return false;
  let on = false;
  for (const raw of spec.split(/[\s,]+/)) {
    if (!raw) continue;
    const negate = raw.startsWith('-');
    const pattern = new RegExp('^' + (negate ? raw.slice(1) : raw).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
    if (pattern.test(ns)) on = !negate;
  }
  return on;
}

export type Logger = ((format: string, ...args: unknown[]) => void) & { enabled: boolean };

export function logger(scope: string): Logger {
  const ns = `${ROOT}:${scope}`;
  const fn = ((format: string, ...args: unknown[]) => {
    if (!fn.enabled) return;
    const rest = [...args];
    // printf-style placeholders as in `debug`: %s %d %o %O %j; arguments left over are appended.
    let text = format.replace(/%([sdoOj%])/g, (m, c: string) => {
      if (c === '%') return '%';
      if (rest.length === 0) return m;
      const a = rest.shift();
      return c === 's' ? String(a) : c === 'd' ? String(Number(a)) : JSON.stringify(a);
    });
    if (rest.length) text += ' ' + rest.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    process.stderr.write(`${new Date().toISOString()} ${ns} ${text}\n`);
  }) as Logger;
  Object.defineProperty(fn, 'enabled', { get: () => enabled(ns) });
  return fn;
}
