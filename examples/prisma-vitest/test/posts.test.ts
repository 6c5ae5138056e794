import { describe, expect, it } from 'vitest';
import { fastInsert } from 'fast-test-db/prisma';
import { draft, feed, publish, SlugTakenError } from '../src/blog.js';
import { prisma } from './setup.js';

async function author(email = 'author@example.com') {
  return fastInsert(prisma.user, { email, name: 'Author', role: 'AUTHOR' });
}

describe('posts', () => {
  it('a draft gets a slug from its title and is not in the feed', async () => {
    const a = await author();
    const post = await draft(prisma, a.id, 'Hello, World!');
    expect(post.slug).toBe('hello-world');
    expect(post.published).toBe(false);
    expect(await feed(prisma)).toEqual([]);
  });

  it('two drafts with the same title collide on the unique slug', async () => {
    const a = await author();
    await draft(prisma, a.id, 'Same title');
    await expect(draft(prisma, a.id, 'Same title')).rejects.toBeInstanceOf(SlugTakenError);
  });

  it('a post needs an existing author (foreign key)', async () => {
    await expect(prisma.post.create({ data: { slug: 'orphan', title: 'Orphan', authorId: 999_999 } })).rejects.toMatchObject({
      code: 'P2003',
    });
  });

  it('the feed lists published posts newest first, with author and comment count', async () => {
    const a = await author();
    const [reader] = await fastInsert(prisma.user, [{ email: 'reader@example.com' }]);
    // Seed 50 posts in one statement; publish every other one a minute apart.
    const posts = await fastInsert(
      prisma.post,
      Array.from({ length: 50 }, (_, i) => ({
        slug: `post-${i}`,
        title: `Post ${i}`,
        authorId: a.id,
        published: i % 2 === 0,
        publishedAt: i % 2 === 0 ? new Date(Date.UTC(2025, 0, 1, 0, i)) : null,
      })),
    );
    await fastInsert(prisma.comment, [
      { body: 'nice', postId: posts[48]!.id, authorId: reader!.id },
      { body: 'agreed', postId: posts[48]!.id, authorId: a.id },
    ]);
    const page = await feed(prisma, { take: 3 });
    expect(page.map((p) => p.slug)).toEqual(['post-48', 'post-46', 'post-44']);
    expect(page[0]).toMatchObject({ author: { name: 'Author' }, _count: { comments: 2 } });
    expect(await feed(prisma, { take: 100 })).toHaveLength(25);
  });

  it('publishing sets the time and updatedAt', async () => {
    const a = await author();
    const p = await draft(prisma, a.id, 'Later');
    const at = new Date('2025-05-05T05:05:05.555Z');
    const published = await publish(prisma, p.id, at);
    expect(published.publishedAt).toEqual(at);
    expect(published.updatedAt.getTime()).toBeGreaterThanOrEqual(p.updatedAt.getTime());
  });
});
