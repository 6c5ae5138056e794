import { fastInsert } from 'fast-test-db/drizzle';
import { expect, it } from 'vitest';
import { topAuthors } from '../src/blog';
import { posts, users } from '../src/schema';
import { db } from '../src/db';

it('ranks authors by published posts, seeded in bulk', async () => {
  const authors = await fastInsert(
    db(),
    users,
    Array.from({ length: 50 }, (_, i) => ({
      email: `a${i}@example.com`,
      name: `Author ${String(i).padStart(2, '0')}`,
      role: 'author' as const,
    })),
  );
  // Author i publishes i posts and leaves one draft: 1275 published rows in a few statements.
  const rows = authors.flatMap((a, i) => [
    ...Array.from({ length: i }, (_, j) => ({ authorId: a.id, title: `p${j}`, published: true, publishedAt: new Date() })),
    { authorId: a.id, title: 'draft' },
  ]);
  await fastInsert(db(), posts, rows);

  expect(await topAuthors(db(), 3)).toEqual([
    { name: 'Author 49', published: 49 },
    { name: 'Author 48', published: 48 },
    { name: 'Author 47', published: 47 },
  ]);
});

it('sees the column the second migration added', async () => {
  const [author] = await fastInsert(db(), users, [{ email: 'e@example.com', name: 'E' }]);
  const post = await fastInsert(db(), posts, { authorId: author!.id, title: 't', slug: 'the-slug' });
  expect(post.slug).toBe('the-slug');
});
