/**
 * keepTemplates eviction leaves a template that a live run leased, on PostgreSQL and MariaDB: a
 * process holding a lease (a run's global setup) keeps its template through another run's build
 * with keepTemplates: 1, however old the template is; once that process is gone, the next build
 * drops it.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { prepareTemplate, startServer } from '../../src/index.js';
import { engineFor } from '../../src/engines/index.js';
import type { EngineName } from '../../src/types.js';
import { privateDataRoot, removeDataRoot, startWorker } from './helpers.js';

const HOUR = 3_600_000;

describe.each(['postgres', 'mysql'] as EngineName[])('%s: a leased template', (engine) => {
  const dataRoot = privateDataRoot(`users-${engine}`);
  afterAll(() => removeDataRoot(dataRoot));
  const base = { engine, dataRoot, prefix: 'ftusers', async migrate() {} };

  test('survives keepTemplates eviction while its run lives, and goes once it is gone', async () => {
    const stamp = Date.now();
    const holder = startWorker(
      { ENGINE: engine, DATA_ROOT: dataRoot, PREFIX: base.prefix, CACHE_KEY: `leased-${stamp}` },
      'test/fixtures/core/lease-holder.mts',
    );
    const { template } = (await holder.line) as { template: string };
    const server = await startServer(base);
    const roles = await engineFor(engine).load();
    const admin = await roles.connector.connect(server);
    try {
      // Built an hour ago: eviction looks only at templates older than 10 minutes.
      const marker = (await roles.markers.readMarker(admin, template))!;
      expect(marker.leases?.map((l) => l.pid)).toEqual([holder.child.pid]);
      await roles.markers.writeMarker(admin, template, { ...marker, created: new Date(Date.now() - HOUR).toISOString() });

      await prepareTemplate({ ...base, cacheKey: `newer-${stamp}`, keepTemplates: 1 });
      expect(await roles.templates.templateState(admin, template)).toBe('complete');

      holder.child.kill('SIGKILL');
      await holder.exited;
      await prepareTemplate({ ...base, cacheKey: `newest-${stamp}`, keepTemplates: 1 });
      expect(await roles.templates.templateState(admin, template)).toBe('missing');
    } finally {
      holder.child.kill('SIGKILL');
      await admin.close();
    }
  });
});
