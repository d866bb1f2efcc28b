// The page view's graph, the parts that need no browser: which box each neighbour goes in, which
// labels come first, and which of them fit without covering one another.

export interface GraphNodeIn {
  id: string;
  url: string;
  depth?: number;
}

export interface GraphEdgeIn {
  from: string;
  to: string;
  section?: string;
}

/** A label's box on the drawing. */
export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** What a box of neighbours is called, by the section of the page its link to them is in. */
const SECTION_NAMES: Record<string, string> = {
  body: 'in the text',
  nav: 'navigation',
  header: 'header',
  footer: 'footer',
  sidebar: 'sidebar',
};
export const LINKS_HERE = 'linking here';

/**
 * The box each page of the neighbourhood goes in. The centre's neighbours by the section of the
 * centre's link to them (the text, navigation, header, footer, sidebar), and the pages that only
 * link to it in a box of their own; pages further out stay loose. A neighbourhood whose links
 * carry no section is boxed by host when it spans hosts.
 */
export function neighbourGroups(centre: string, nodes: readonly GraphNodeIn[], edges: readonly GraphEdgeIn[]): Map<string, string> {
  const groups = new Map<string, string>();
  const bySection = edges.some((e) => (e.from === centre || e.to === centre) && e.section);
  if (bySection) {
    for (const e of edges) if (e.from === centre && e.to !== centre && !groups.has(e.to)) groups.set(e.to, SECTION_NAMES[e.section ?? ''] ?? 'links');
    for (const e of edges) if (e.to === centre && e.from !== centre && !groups.has(e.from)) groups.set(e.from, LINKS_HERE);
    return groups;
  }
  const hostOf = (n: GraphNodeIn) => new URL(n.url).host;
  if (new Set(nodes.map(hostOf)).size > 1) for (const n of nodes) groups.set(n.id, hostOf(n));
  return groups;
}

/** The order labels are offered a place in: the centre, then the pages with the most links here, the nearer first. */
export function labelPriority(centre: string, nodes: readonly GraphNodeIn[], edges: readonly GraphEdgeIn[]): string[] {
  const degree = new Map<string, number>();
  for (const e of edges) for (const id of [e.from, e.to]) degree.set(id, (degree.get(id) ?? 0) + 1);
  return [...nodes]
    .sort(
      (a, b) =>
        Number(b.id === centre) - Number(a.id === centre) ||
        (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) ||
        (a.depth ?? 0) - (b.depth ?? 0) ||
        (a.id < b.id ? -1 : 1),
    )
    .map((n) => n.id);
}

/** Whether two boxes come within `gap` of each other. */
export function overlaps(a: Box, b: Box, gap = 2): boolean {
  return a.x1 < b.x2 + gap && b.x1 < a.x2 + gap && a.y1 < b.y2 + gap && b.y1 < a.y2 + gap;
}

/**
 * The labels drawn: in priority order, each one that covers no label kept before it, up to `max`.
 * The first (the centre) is always kept.
 */
export function fittingLabels(ordered: ReadonlyArray<{ id: string; box: Box }>, max: number): Set<string> {
  const kept: Box[] = [];
  const ids = new Set<string>();
  for (const { id, box } of ordered) {
    if (ids.size >= max) break;
    if (kept.length > 0 && kept.some((k) => overlaps(k, box))) continue;
    kept.push(box);
    ids.add(id);
  }
  return ids;
}
