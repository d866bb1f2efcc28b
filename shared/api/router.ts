import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Embedder } from '../enrich/providers.js';
import type { ChangeStore, CrawlStore, EnrichStore, GraphStore, VectorIndex } from '../ports/index.js';
import { ErrorBody } from './schemas.js';
import type { ChangeDiffs } from '../changes/change-diffs.js';

/** What the API reads: the same ports in both runtimes. */
export interface ApiDeps {
  store: CrawlStore;
  graph: GraphStore;
  enrich: EnrichStore;
  vectors: VectorIndex;
  /** Embeds queries the way the pages were embedded. */
  embedder: Embedder;
  /** What changed between runs; absent: no `/changes`. */
  changes?: ChangeStore;
  /** The word diffs of changed pages (cached; `trawl serve` computes them on a thread of their own). @default computed on the request's thread, cached */
  diffs?: ChangeDiffs;
}

type Target = 'query' | 'param' | 'header' | 'json';
const TARGET_NAMES: Record<Target, string> = { query: 'query parameter', param: 'path parameter', header: 'header', json: 'body field' };

/** A 400 that names the parameter and what it expects. */
function validationMessage(target: Target, error: z.ZodError): string {
  const issue = error.issues[0];
  const name = issue?.path.join('.') || '(all)';
  return `invalid ${TARGET_NAMES[target] ?? target} "${name}": ${issue?.message ?? 'not valid'}`;
}

/** An app or a group of routes: every parameter validated by its route schema, a 400 naming it otherwise. */
export function newRouter(): OpenAPIHono {
  return new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ error: validationMessage(result.target as Target, result.error) }, 400);
    },
  });
}

export const json = (schema: z.ZodType, description: string) => ({ content: { 'application/json': { schema } }, description });
export const errors = {
  400: json(ErrorBody, 'A parameter is not valid: the message names it.'),
  404: json(ErrorBody, 'No such page or run.'),
};
