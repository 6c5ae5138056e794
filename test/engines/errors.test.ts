/** Driver errors, classified by what the engine's codes mean. */
import { describe, expect, it } from 'vitest';
import { isFastTestDbError } from '../../src/errors.js';
import { classifyDriverError, driverErrorKind, type DriverErrorKind } from '../../src/engines/errors.js';
import { runnerFile } from '../../src/runners/shared/paths.js';

describe('driver errors', () => {
  it('map to one stable code each, with a fix', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code: 'ECONNREFUSED' }, 'UNREACHABLE'],
      [{ code: '28P01' }, 'AUTH_FAILED'],
      [{ code: 'ER_ACCESS_DENIED_ERROR' }, 'AUTH_FAILED'],
      [{ code: '42501' }, 'PERMISSION_DENIED'],
      [{ code: '53300' }, 'TOO_MANY_CONNECTIONS'],
      [{ code: '55006' }, 'DATABASE_IN_USE'],
      [{ code: 'ENOSPC' }, 'TMPFS_FULL'],
      [{ code: 'XX000' }, 'QUERY_FAILED'],
    ];
    for (const [err, code] of cases) {
      const e = classifyDriverError(Object.assign(new Error('driver said no'), err), 'doing a thing');
      expect(e.code).toBe(code);
      expect(e.message).toContain('doing a thing: driver said no');
      expect(e.fix).toBeTruthy();
    }
  });

  it('are classified by meaning, bare or wrapped, the same on both engines', () => {
    const cases: Array<[string, DriverErrorKind]> = [
      ['42P04', 'database-exists'],
      ['ER_DB_CREATE_EXISTS', 'database-exists'],
      ['3D000', 'database-missing'],
      ['ER_BAD_DB_ERROR', 'database-missing'],
      ['55006', 'in-use'],
      ['ER_LOCK_WAIT_TIMEOUT', 'in-use'],
      ['XX000', 'other'],
      ['toString', 'other'],
    ];
    for (const [code, kind] of cases) {
      const driver = Object.assign(new Error('driver said no'), { code });
      expect(driverErrorKind(driver)).toBe(kind);
      expect(driverErrorKind(classifyDriverError(driver, 'doing a thing'))).toBe(kind);
    }
    expect(driverErrorKind(new Error('no code'))).toBe('other');
    expect(driverErrorKind(undefined)).toBe('other');
  });

  it('a file missing from the installed package says to reinstall, not that a server binary is missing', () => {
    let error: unknown;
    try {
      runnerFile('no-such-runner-file', 'no-such/runner-file');
    } catch (e) {
      error = e;
    }
    expect(isFastTestDbError(error, 'PACKAGE_BROKEN'), String(error)).toBe(true);
  });
});
