import { describe, expect, it } from 'vitest';
import { fastInsert } from 'fast-test-db/prisma';
import { deleteUser } from '../src/blog.js';
import { prisma } from './setup.js';

describe('users', () => {
  it('gets the default role and a creation time', async () => {
    const u = await prisma.user.create({ data: { email: 'ada@example.com', name: 'Ada' } });
    expect(u.role).toBe('READER');
    expect(u.createdAt).toBeInstanceOf(Date);
  });

  it('refuses a second user with the same email', async () => {
    await fastInsert(prisma.user, [{ email: 'grace@example.com' }]);
    await expect(prisma.user.create({ data: { email: 'grace@example.com' } })).rejects.toMatchObject({ code: 'P2002' });
  });

  it('deleting a user deletes their posts and comments', async () => {
    const [author, reader] = await fastInsert(prisma.user, [{ email: 'a@example.com', role: 'AUTHOR' }, { email: 'r@example.com' }]);
    const post = await fastInsert(prisma.post, { slug: 'hello', title: 'Hello', authorId: author!.id });
    await fastInsert(prisma.comment, { body: 'first', postId: post.id, authorId: reader!.id });
    await deleteUser(prisma, author!.id);
    expect(await prisma.post.count()).toBe(0);
    expect(await prisma.comment.count()).toBe(0);
    expect(await prisma.user.count()).toBe(1);
  });

  it('starts every test from empty tables', async () => {
    expect(await prisma.user.count()).toBe(0);
  });
});
