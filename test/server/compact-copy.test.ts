/** Copies saved without the zeros large files end with come back byte for byte, at their sizes. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restoreCompactCopy, saveCompactCopy, SIZES_FILE } from '../../src/server/os/compact-copy.js';
import { treeBytes } from '../../src/server/os/warm-cache.js';

describe('compact copies', () => {
  const work = mkdtempSync('/tmp/ftdb-compact-');
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const MB = 1024 * 1024;

  it('leave out a zero tail, keep zeros inside a file, and restore every file as it was', () => {
    const data = join(work, 'data');
    mkdirSync(join(data, 'db'), { recursive: true, mode: 0o700 });
    const log = Buffer.alloc(40 * MB);
    log.write('header', 0);
    log.write('records', 3 * MB + 5);
    writeFileSync(join(data, 'ib_logfile0'), log);
    chmodSync(join(data, 'ib_logfile0'), 0o660);
    const middle = Buffer.alloc(3 * MB, 1);
    middle.fill(0, MB, 2 * MB); // zeros between data are kept
    writeFileSync(join(data, 'db', 'table.ibd'), middle);
    writeFileSync(join(data, 'db', 'zeros'), Buffer.alloc(2 * MB));
    writeFileSync(join(data, 'small'), 'x');
    symlinkSync('small', join(data, 'link'));

    const copy = join(work, 'copy');
    saveCompactCopy(data, copy);
    expect(treeBytes(copy)).toBeLessThan(10 * MB);
    expect(statSync(join(copy, 'ib_logfile0')).size).toBe(4 * MB);

    const back = join(work, 'back');
    mkdirSync(back, { mode: 0o700 });
    expect(restoreCompactCopy(copy, back, 'ib_logfile0')).toBe(true);
    for (const f of ['ib_logfile0', 'db/table.ibd', 'db/zeros', 'small'])
      expect(readFileSync(join(back, f)).equals(readFileSync(join(data, f)))).toBe(true);
    expect(statSync(join(back, 'ib_logfile0')).mode & 0o777).toBe(0o660);
    expect(readlinkSync(join(back, 'link'))).toBe('small');
    expect(() => statSync(join(back, SIZES_FILE))).toThrow();
  });

  it('a copy naming a file it does not hold is refused, and the target left empty', () => {
    const copy = join(work, 'copy');
    rmSync(join(copy, 'ib_logfile0'));
    writeFileSync(join(copy, 'probe'), '');
    const back = join(work, 'back2');
    mkdirSync(back);
    expect(restoreCompactCopy(copy, back, 'probe')).toBe(false);
    expect(statSync(back).isDirectory()).toBe(true);
    expect(readFileSync(join(copy, SIZES_FILE), 'utf8')).toContain('ib_logfile0');
  });
});
