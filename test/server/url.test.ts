/** Reading a server URL. */
import { describe, expect, it } from 'vitest';
import { parseServerUrl } from '../../src/server/providers/url.js';

describe('server URLs', () => {
  it('refuse a remote host unless allowed', () => {
    expect(() => parseServerUrl('postgres://u@db.example.com/x', false, {})).toThrow(expect.objectContaining({ code: 'REMOTE_REFUSED' }));
    expect(parseServerUrl('postgres://u@db.example.com/x', true, {}).host).toBe('db.example.com');
  });
  it('read engine, credentials and defaults', () => {
    expect(parseServerUrl('postgresql://me:p%40ss@127.0.0.1:6543/app', false, {})).toMatchObject({
      engine: 'postgres',
      user: 'me',
      password: 'p@ss',
      port: 6543,
      adminDatabase: 'app',
      owned: false,
    });
    expect(parseServerUrl('mariadb://root@localhost', false, {})).toMatchObject({ engine: 'mysql', port: 3306, user: 'root' });
    expect(() => parseServerUrl('sqlite://x', false, {})).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});
