// The application code under test: a few blog operations on a Prisma client.
import type { PrismaClient } from '../generated/prisma/client.js';

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug "${slug}" is taken`);
  }
}

export function slugify(title: string): string {
  return title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export async function draft(prisma: PrismaClient, authorId: number, title: string, body = '') {
  try {
    return await prisma.post.create({ data: { authorId, title, body, slug: slugify(title) } });
  } catch (e) {
    // P2002: unique constraint violation (here: posts.slug)
    if ((e as { code?: string }).code === 'P2002') throw new SlugTakenError(slugify(title));
    throw e;
  }
}

export async function publish(prisma: PrismaClient, postId: number, at = new Date()) {
  return prisma.post.update({ where: { id: postId }, data: { published: true, publishedAt: at } });
}

/** Published posts, newest first, with author name and comment count. */
export async function feed(prisma: PrismaClient, { take = 10, skip = 0 } = {}) {
  return prisma.post.findMany({
    where: { published: true },
    orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
    take,
    skip,
    select: { slug: true, title: true, author: { select: { name: true } }, _count: { select: { comments: true } } },
  });
}

export async function deleteUser(prisma: PrismaClient, id: number) {
  return prisma.user.delete({ where: { id } });
}
