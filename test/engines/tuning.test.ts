/** The tuning flags, in one place per engine. */
import { describe, expect, it } from 'vitest';
import { containerDefinition as postgresContainerDefinition } from '../../src/engines/postgres/container.js';
import { postgresSettings } from '../../src/engines/postgres/tuning.js';

describe('tuning in one place', () => {
  it('turns durability off and sizes connections', () => {
    const s = postgresSettings({ maxConnections: 500, major: 18 });
    expect(s).toMatchObject({ fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '500' });
  });
  it('passes the same flags to a container on the command line, with data on tmpfs', () => {
    const def = postgresContainerDefinition({}, 'postgres:16-alpine');
    expect(def.image).toBe('postgres:16-alpine');
    expect(def.command.join(' ')).toContain('-c fsync=off');
    expect(def.command.join(' ')).toContain('-c full_page_writes=off');
    expect(Object.keys(def.tmpfs)).toContain(def.env.PGDATA);
    expect(def.port).toBe(5432);
  });
});
