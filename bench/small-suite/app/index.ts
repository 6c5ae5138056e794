// A small app module: a catalog, two services over one pool, wired at start-up.
import type pg from 'pg';
import { buildCatalog, type Product } from './catalog.js';
import { openPool } from './store.js';

export interface App {
  customers: { create(name: string): Promise<{ id: number }> };
  orders: {
    place(customerId: number, skus: string[]): Promise<{ id: number; total: number }>;
    get(id: number): Promise<{ id: number; total: number; lines: number }>;
    countFor(customerId: number): Promise<number>;
  };
  close(): Promise<void>;
}

export function createApp(): App {
  const pool: pg.Pool = openPool();
  const catalog: Map<string, Product> = buildCatalog();
  const price = (sku: string) => {
    const p = catalog.get(sku);
    if (!p) throw new Error(`unknown sku ${sku}`);
    return p.cents;
  };
  return {
    customers: {
      async create(name) {
        const r = await pool.query<{ id: number }>('INSERT INTO customer (name) VALUES ($1) RETURNING id', [name]);
        return r.rows[0]!;
      },
    },
    orders: {
      async place(customerId, skus) {
        const total = skus.reduce((s, k) => s + price(k), 0);
        const r = await pool.query<{ id: number }>('INSERT INTO orders (customer_id, total_cents) VALUES ($1, $2) RETURNING id', [
          customerId,
          total,
        ]);
        const id = r.rows[0]!.id;
        for (const sku of skus)
          await pool.query('INSERT INTO order_line (order_id, sku, cents) VALUES ($1, $2, $3)', [id, sku, price(sku)]);
        return { id, total };
      },
      async get(id) {
        const r = await pool.query<{ total: number; lines: string }>(
          'SELECT o.total_cents AS total, count(l.id) AS lines FROM orders o LEFT JOIN order_line l ON l.order_id = o.id WHERE o.id = $1 GROUP BY o.id',
          [id],
        );
        return { id, total: r.rows[0]!.total, lines: Number(r.rows[0]!.lines) };
      },
      async countFor(customerId) {
        const r = await pool.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE customer_id = $1', [customerId]);
        return Number(r.rows[0]!.n);
      },
    },
    close: () => pool.end(),
  };
}
