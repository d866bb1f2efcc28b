import type { GraphStore, LinkView } from '../ports/index.js';

export interface GraphNode {
  id: string;
  url: string;
  /** Hops from the centre page. */
  depth: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  anchor: string;
  section: LinkView['section'];
}

export interface Neighbourhood {
  centre: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Nodes or edges were left out to stay within the caps. */
  truncated: boolean;
}

export interface NeighbourhoodLimits {
  /** @default 150 */
  maxNodes?: number;
  /** @default 600 */
  maxEdges?: number;
  /** Links read per page: the rest are left out. @default 60 */
  perPage?: number;
}

/**
 * The pages within `depth` links of a page (either direction), and the links between them, for
 * drawing. Nodes are added nearest first; a link to a page that was never fetched ends at its URL.
 */
export async function neighbourhood(
  graph: GraphStore,
  centre: string,
  centreUrl: string,
  depth: 1 | 2,
  limits: NeighbourhoodLimits = {},
): Promise<Neighbourhood> {
  const maxNodes = limits.maxNodes ?? 150;
  const maxEdges = limits.maxEdges ?? 600;
  const perPage = limits.perPage ?? 60;
  const nodes = new Map<string, GraphNode>([[centre, { id: centre, url: centreUrl, depth: 0 }]]);
  const edges = new Map<string, GraphEdge>();
  let truncated = false;
  let frontier = [centre];
  for (let hop = 1; hop <= depth; hop++) {
    const next: string[] = [];
    for (const id of frontier) {
      const [outs, ins] = await Promise.all([graph.outlinks(id), graph.inlinks(id)]);
      const links = [
        ...outs.map((l) => ({ l, other: l.toPageId ?? l.toId, otherUrl: l.toUrl, from: id, to: l.toPageId ?? l.toId })),
        ...ins.map((l) => ({ l, other: l.fromId, otherUrl: l.fromUrl, from: l.fromId, to: id })),
      ];
      if (links.length > perPage) truncated = true;
      for (const { l, other, otherUrl, from, to } of links.slice(0, perPage)) {
        if (!nodes.has(other)) {
          if (nodes.size >= maxNodes) {
            truncated = true;
            continue;
          }
          nodes.set(other, { id: other, url: otherUrl, depth: hop });
          next.push(other);
        }
        const key = `${from}>${to}`;
        if (edges.has(key) || from === to) continue;
        if (edges.size >= maxEdges) {
          truncated = true;
          continue;
        }
        edges.set(key, { from, to, anchor: l.anchor, section: l.section });
      }
    }
    frontier = next;
  }
  return { centre, nodes: [...nodes.values()], edges: [...edges.values()], truncated };
}
