/** The code under test: a few queries a blog would have. */
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from './db';
import { posts, users } from './schema';

export async function publish(db: Db, postId: number, at = new Date()): Promise<boolean> {
  const updated = await db
    .update(posts)
    .set({ published: true, publishedAt: at })
    .where(and(eq(posts.id, postId), eq(posts.published, false)))
    .returning({ id: posts.id });
  return updated.length === 1;
}

/** Authors ranked by published posts, most first. */
export async function topAuthors(db: Db, limit = 3): Promise<Array<{ name: string; published: number }>> {
  return db
    .select({ name: users.name, published: count(posts.id) })
    .from(users)
    .innerJoin(posts, and(eq(posts.authorId, users.id), eq(posts.published, true)))
    .groupBy(users.id)
    .orderBy(desc(count(posts.id)), users.name)
    .limit(limit);
}

export async function findUserByEmail(db: Db, email: string) {
  return db.query.users.findFirst({ where: sql`lower(${users.email}) = lower(${email})`, with: { posts: true } });
}
