// A price list the app builds when it starts: the little CPU work a real module does at import
// (building lookup tables, parsing config) before any test runs.
export interface Product {
  sku: string;
  name: string;
  cents: number;
}

export function buildCatalog(size = 3000): Map<string, Product> {
  const products: Product[] = [];
  for (let i = 0; i < size; i++) {
    const sku = `sku-${i}`;
    let h = 2166136261;
    for (const ch of sku) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    products.push({ sku, name: `Product ${i}`, cents: 100 + ((h >>> 0) % 9900) });
  }
  products.sort((a, b) => a.cents - b.cents || a.sku.localeCompare(b.sku));
  return new Map(products.map((p) => [p.sku, p]));
}
