// A pond shop of product pages on loopback, and how a model reads a product from the chunks it is
// sent (finding the values in the chunk text and naming the chunks), for the structured extraction tests.
import { serve } from '../../support/helpers.js';

export const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string', enum: ['EUR', 'USD'] },
    inStock: { type: 'boolean' },
    specs: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } }, required: ['name', 'value'] } },
  },
  required: ['name', 'price', 'currency', 'inStock'],
  additionalProperties: false,
};

export interface Product {
  slug: string;
  name: string;
  price: string;
  currency: string;
  stock: string;
  specs: Array<[string, string]>;
}
export const PRODUCTS: Product[] = [
  {
    slug: 'pond-pump',
    name: 'Pond pump 3000',
    price: '89.90',
    currency: 'EUR',
    stock: 'In stock',
    specs: [
      ['Flow', '3000 l/h'],
      ['Power', '45 W'],
    ],
  },
  { slug: 'reed-basket', name: 'Reed basket', price: '12.50', currency: 'USD', stock: 'Sold out', specs: [['Diameter', '30 cm']] },
  { slug: 'liner', name: 'Pond liner', price: '149.00', currency: 'EUR', stock: 'In stock', specs: [] },
  { slug: 'filter', name: 'Pressure filter', price: '210.00', currency: 'EUR', stock: 'In stock', specs: [['Volume', '10000 l']] },
];
const WORDS = ['heron', 'lily', 'koi', 'algae', 'pebble', 'willow', 'newt', 'moss', 'rain', 'clay', 'fern', 'dragonfly', 'gravel', 'frost', 'mud', 'sun'];
/** Text of its own for each page (pages that read alike would be near-duplicates, and not enriched). */
export const filler = (n: number) =>
  Array.from(
    { length: 20 },
    (_, i) => `The ${WORDS[(n * 7 + i) % 16]} and the ${WORDS[(n * 3 + i * 5) % 16]} meet ${WORDS[(n + i * 11) % 16]} number ${n * 100 + i}.`,
  ).join(' ');
export const productPage = (p: Product, n: number) =>
  `<!doctype html><html lang="en"><head><title>${p.name}</title></head><body><nav><a href="/">Shop</a></nav><main><h1>${p.name}</h1>` +
  `<p>${filler(n)}</p><p>Price: ${p.price} ${p.currency}. Availability: ${p.stock}.</p>` +
  `<p>${filler(n + 10)}</p><table>${p.specs.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('')}</table>` +
  `<p>Specification: ${p.specs.map(([k, v]) => `${k} is ${v}`).join('; ') || 'none listed'}.</p></main></body></html>`;

/** The chunks of a question, by id, as the extractor sends them. */
function chunksOf(user: string): Map<string, string> {
  const parts = user.split(/^\[([0-9a-f]+)\]\n/m);
  const out = new Map<string, string>();
  for (let i = 1; i + 1 < parts.length; i += 2) out.set(parts[i]!, parts[i + 1]!.trim());
  return out;
}

/** Reads a product from the chunks it is sent, as the model is asked to, naming the chunk of each value. */
export function readProduct(user: string): { data: Record<string, unknown>; sources: Record<string, string[]> } {
  const chunks = chunksOf(user);
  const find = (re: RegExp) => {
    for (const [id, text] of chunks) {
      const m = re.exec(text);
      if (m) return { m, id };
    }
    return undefined;
  };
  const title = /^Title: (.*)$/m.exec(user)![1]!;
  const name = find(new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))!;
  const price = find(/Price: ([\d.]+) (EUR|USD)/);
  const stock = find(/Availability: (In stock|Sold out)/);
  // A page that sells nothing: the values it does not give are null.
  if (!price || !stock) return { data: { name: title, price: null, currency: null, inStock: null }, sources: { '/name': [name.id] } };
  const specLine = find(/Specification: (.*)\./);
  const specs = (specLine?.m[1] ?? '')
    .split('; ')
    .map((s) => /^(.*) is (.*)$/.exec(s))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1]!, value: m[2]! }));
  const data: Record<string, unknown> = { name: title, price: Number(price.m[1]), currency: price.m[2], inStock: stock.m[1] === 'In stock', specs };
  const sources: Record<string, string[]> = { '/name': [name.id], '/price': [price.id], '/currency': [price.id], '/inStock': [stock.id] };
  specs.forEach((_, i) => {
    sources[`/specs/${i}/name`] = [specLine!.id];
    sources[`/specs/${i}/value`] = [specLine!.id];
  });
  return { data, sources };
}

/** A product the shop sells but links from nowhere: only a request for its URL finds it. */
export const UNLISTED: Product = { slug: 'water-lily', name: 'Water lily', price: '7.20', currency: 'USD', stock: 'In stock', specs: [['Colour', 'white']] };

/** The shop: a home page linking every product, and the product pages (and the unlisted one's). */
export function startShop(): ReturnType<typeof serve> {
  return serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === `/product/${UNLISTED.slug}`) return void res.writeHead(200, { 'content-type': 'text/html' }).end(productPage(UNLISTED, 50));
    const i = PRODUCTS.findIndex((p) => path === `/product/${p.slug}`);
    res.writeHead(i >= 0 || path === '/' ? 200 : 404, { 'content-type': 'text/html' });
    if (i >= 0) return void res.end(productPage(PRODUCTS[i]!, i));
    res.end(
      `<!doctype html><html><head><title>Pond shop</title></head><body><h1>Pond shop</h1><p>${filler(99)}</p><ul>${PRODUCTS.map((p) => `<li><a href="/product/${p.slug}">${p.name}</a></li>`).join('')}</ul></body></html>`,
    );
  });
}
