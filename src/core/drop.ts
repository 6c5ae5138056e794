/**
 * The end of a run, or a data directory about to be saved: our test databases of a prefix
 * dropped, never a template and never a database without our marker.
 */
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import type { Marker } from '../engines/marker.js';

/**
 * Drops our test databases (never templates) whose names start with `prefix` and whose marker
 * `which` selects, and returns their names. A database without our marker is never a candidate.
 * The list is read again, up to three times in all, while a read finds something new: a clone
 * still being made when the list was read (a test file's spare, made in the background) is
 * renamed into place meanwhile, and is ours under its final name only on the next read. A
 * database gone by the time of its drop counts as dropped, and its name is among those returned.
 */
export async function dropOurDatabases(
  roles: Pick<ServerRoles, 'markers' | 'templates'>,
  admin: SqlClient,
  prefix: string,
  which: (marker: Marker) => boolean = () => true,
): Promise<string[]> {
  const dropped = new Set<string>();
  for (let round = 0; round < 3; round++) {
    const ours = (await roles.markers.listOurs(admin, prefix)).filter(
      (d) => d.marker.kind === 'database' && which(d.marker) && !dropped.has(d.name),
    );
    if (!ours.length) break;
    for (const d of ours) {
      await roles.templates.drop(admin, d.name, { force: true });
      dropped.add(d.name);
    }
  }
  return [...dropped];
}
