import { fastInsert } from 'fast-test-db/drizzle';
import { describe, expect, it } from 'vitest';
import { findUserByEmail, publish } from '../src/blog';
import { posts, users } from '../src/schema';
import { db } from '../src/db';

describe('publish', () => {
  it('publishes a draft once', async () => {
    const author = await fastInsert(db(), users, { email: 'ada@example.com', name: 'Ada', role: 'author' });
    const draft = await fastInsert(db(), posts, { authorId: author.id, title: 'Notes' });
    expect(draft.published).toBe(false);

    expect(await publish(db(), draft.id, new Date('2025-01-01T00:00:00Z'))).toBe(true);
    expect(await publish(db(), draft.id)).toBe(false);

    const [stored] = await db().select().from(posts);
    expect(stored!.published).toBe(true);
    expect(stored!.publishedAt).toEqual(new Date('2025-01-01T00:00:00Z'));
  });

  it('starts every test from empty tables, with ids from 1', async () => {
    expect(await db().select().from(posts)).toEqual([]);
    const user = await fastInsert(db(), users, { email: 'bob@example.com', name: 'Bob' });
    expect(user.id).toBe(1);
    expect(user.role).toBe('reader');
  });
});

describe('findUserByEmail', () => {
  it('matches case-insensitively and loads posts', async () => {
    const [ada] = await fastInsert(db(), users, [
      { email: 'Ada@Example.com', name: 'Ada' },
      { email: 'cy@example.com', name: 'Cy' },
    ]);
    await fastInsert(db(), posts, [
      { authorId: ada!.id, title: 'a', slug: 'a' },
      { authorId: ada!.id, title: 'b' },
    ]);

    const found = await findUserByEmail(db(), 'ada@EXAMPLE.com');
    expect(found?.name).toBe('Ada');
    expect(found?.posts.map((p) => p.title).sort()).toEqual(['a', 'b']);
  });

  it('is backed by a unique index on lower(email)', async () => {
    await fastInsert(db(), users, { email: 'dup@example.com', name: 'One' });
    await expect(fastInsert(db(), users, { email: 'DUP@example.com', name: 'Two' })).rejects.toThrow(/users_email_idx/);
  });
});
