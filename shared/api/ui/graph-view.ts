// The page view's link neighbourhood, drawn with Cytoscape.js: readable at a few hundred pages.
import cytoscape from 'cytoscape';
import { api, type Json } from './dom.js';

let graph: cytoscape.Core | undefined;

/** Labels drawn at once: past this many nodes the rest show theirs on hover. */
const GRAPH_LABELS = 24;

/**
 * The nodes whose labels are drawn: the page itself, then the most linked (within the neighbourhood)
 * up to GRAPH_LABELS; a large neighbourhood with every label drawn is unreadable.
 */
function labelledNodes(centre: string, nodes: Array<{ id: string }>, edges: Array<{ from: string; to: string }>): Set<string> {
  const degree = new Map<string, number>();
  for (const e of edges) for (const id of [e.from, e.to]) degree.set(id, (degree.get(id) ?? 0) + 1);
  const ranked = nodes
    .map((n) => n.id)
    .sort((a, b) => (b === centre ? 1 : 0) - (a === centre ? 1 : 0) || (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || a.localeCompare(b));
  return new Set(ranked.slice(0, GRAPH_LABELS));
}

export async function drawGraph(box: HTMLElement, id: string, depth: 1 | 2): Promise<void> {
  const n = await api(`/graph/neighbourhood/${id}?depth=${depth}`);
  graph?.destroy();
  const labelled = labelledNodes(id, n.nodes, n.edges);
  // Pages grouped by host (a box each) when the neighbourhood spans hosts.
  const hosts = [...new Set(n.nodes.map((node: Json) => new URL(node.url).host))] as string[];
  const grouped = hosts.length > 1;
  graph = cytoscape({
    container: box,
    elements: [
      ...(grouped ? hosts.map((host) => ({ data: { id: `host:${host}`, label: host, host: 1 } })) : []),
      ...n.nodes.map((node: Json) => ({
        data: {
          id: node.id,
          label: (node.title || new URL(node.url).pathname).slice(0, 40),
          centre: node.id === id ? 1 : 0,
          fetched: node.fetched ? 1 : 0,
          shown: labelled.has(node.id) ? 1 : 0,
          ...(grouped ? { parent: `host:${new URL(node.url).host}` } : {}),
        },
      })),
      ...n.edges.map((e: Json, i: number) => ({ data: { id: `e${i}`, source: e.from, target: e.to, label: e.anchor } })),
    ],
    style: [
      { selector: 'node', style: { label: '', 'font-size': 9, 'background-color': '#5b7aa8', width: 14, height: 14, color: '#223' } },
      { selector: 'node[shown = 1], node.hover', style: { label: 'data(label)', 'text-background-color': '#fff', 'text-background-opacity': 0.8 } },
      { selector: 'node[centre = 1]', style: { 'background-color': '#d9480f', width: 22, height: 22 } },
      { selector: 'node[fetched = 0]', style: { 'background-color': '#bbb' } },
      {
        selector: 'node[host = 1]',
        style: {
          label: 'data(label)',
          'text-valign': 'top',
          'font-size': 10,
          color: '#556',
          'background-color': '#eef2f7',
          'background-opacity': 0.6,
          'border-width': 1,
          'border-color': '#c5d0de',
        },
      },
      { selector: 'edge', style: { width: 1, 'line-color': '#9ab', 'target-arrow-color': '#9ab', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier' } },
    ],
    layout: { name: 'cose', animate: false, randomize: false },
    wheelSensitivity: 0.3,
  });
  graph.on('mouseover', 'node', (e) => e.target.addClass('hover'));
  graph.on('mouseout', 'node', (e) => e.target.removeClass('hover'));
  graph.on('tap', 'node', (e) => {
    if (e.target.data('fetched')) location.hash = `#/page/${e.target.id()}`;
  });
  box.dataset.nodes = String(n.nodes.length);
  box.dataset.edges = String(n.edges.length);
  box.dataset.labels = String(labelled.size);
  box.dataset.hosts = String(grouped ? hosts.length : 1);
}
