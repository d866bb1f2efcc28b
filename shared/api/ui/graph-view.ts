// The page view's link neighbourhood, drawn with Cytoscape.js: a force layout (fCoSE, made for
// compound graphs) with the centre's neighbours boxed by the section their link is in, and only
// labels that fit drawn (the centre's always; the rest show theirs on hover).
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import { api, type Json } from './dom.js';
import { fittingLabels, labelPriority, neighbourGroups, type Box } from './graph-layout.js';

cytoscape.use(fcose);

let graph: cytoscape.Core | undefined;
/** The smallest zoom the drawing opens at: below it labels are too small to read, and the view opens on the centre instead. */
const MIN_OPEN_ZOOM = 0.6;

/** Labels drawn at most, however many fit. */
const MAX_LABELS = 40;

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-size': 10,
      'background-color': '#5b7aa8',
      width: 14,
      height: 14,
      color: '#223',
      'text-background-color': '#fff',
      'text-background-opacity': 0.85,
      'text-background-padding': '1px',
      'text-valign': 'bottom',
      'text-margin-y': 2,
    },
  },
  { selector: 'node.quiet', style: { label: '' } },
  { selector: 'node.quiet.hover', style: { label: 'data(label)', 'z-index': 10 } },
  { selector: 'node[centre = 1]', style: { 'background-color': '#d9480f', width: 22, height: 22, 'font-weight': 'bold', 'z-index': 9 } },
  { selector: 'node[fetched = 0]', style: { 'background-color': '#bbb' } },
  {
    selector: 'node[group = 1]',
    style: {
      label: 'data(label)',
      'text-valign': 'top',
      'text-margin-y': 0,
      'font-size': 11,
      'font-weight': 'bold',
      color: '#556',
      'background-color': '#eef2f7',
      'background-opacity': 0.6,
      'border-width': 1,
      'border-color': '#c5d0de',
    },
  },
  { selector: 'edge', style: { width: 1, 'line-color': '#9ab', 'target-arrow-color': '#9ab', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier' } },
];

/** A page's label: its title, or its path. */
function labelOf(node: Json): string {
  const text = String(node.title || new URL(node.url).pathname);
  return text.length > 26 ? `${text.slice(0, 25)}…` : text;
}

export async function drawGraph(box: HTMLElement, id: string, depth: 1 | 2): Promise<void> {
  const n = await api(`/graph/neighbourhood/${id}?depth=${depth}`);
  const centre = String(n.centre ?? id);
  graph?.destroy();
  // A larger neighbourhood gets a taller drawing.
  box.style.height = n.nodes.length > 40 ? '560px' : '';
  const groups = neighbourGroups(centre, n.nodes, n.edges);
  const groupNames = [...new Set(groups.values())];
  graph = cytoscape({
    container: box,
    elements: [
      ...groupNames.map((name) => ({ data: { id: `group:${name}`, label: name, group: 1 } })),
      ...n.nodes.map((node: Json) => ({
        data: {
          id: node.id,
          label: labelOf(node),
          centre: node.id === centre ? 1 : 0,
          fetched: node.fetched ? 1 : 0,
          ...(groups.has(node.id) ? { parent: `group:${groups.get(node.id)}` } : {}),
        },
      })),
      ...n.edges.map((e: Json, i: number) => ({ data: { id: `e${i}`, source: e.from, target: e.to, label: e.anchor } })),
    ],
    style: STYLE,
    layout: { name: 'preset' },
    wheelSensitivity: 0.3,
  });
  const cy = graph;
  const layout = cy.layout({
    name: 'fcose',
    quality: 'proof',
    animate: false,
    randomize: true,
    nodeDimensionsIncludeLabels: true,
    idealEdgeLength: () => 45,
    nodeRepulsion: () => 4500,
    nestingFactor: 0.1,
    gravity: 0.8,
    gravityCompound: 1.5,
    tile: true,
    padding: 16,
  } as cytoscape.LayoutOptions);
  const placed = new Promise<void>((resolve) => layout.one('layoutstop', () => resolve()));
  layout.run();
  await placed;
  cy.fit(undefined, 16);
  if (cy.zoom() < MIN_OPEN_ZOOM) {
    cy.zoom(MIN_OPEN_ZOOM);
    cy.center(cy.getElementById(centre));
  }
  // Labels that fit: offered in priority order, each kept only where it covers none kept before.
  const pages = cy.nodes('[group != 1]');
  const ordered = labelPriority(centre, n.nodes, n.edges).map((nodeId) => {
    const b = cy.getElementById(nodeId).renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
    return { id: nodeId, box: { x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 } as Box };
  });
  const shown = fittingLabels(ordered, MAX_LABELS);
  pages.forEach((node) => {
    if (!shown.has(node.id())) node.addClass('quiet');
  });
  cy.on('mouseover', 'node', (e) => e.target.addClass('hover'));
  cy.on('mouseout', 'node', (e) => e.target.removeClass('hover'));
  cy.on('tap', 'node', (e) => {
    if (e.target.data('fetched')) location.hash = `#/page/${e.target.id()}`;
  });
  box.dataset.nodes = String(n.nodes.length);
  box.dataset.edges = String(n.edges.length);
  box.dataset.labels = String(shown.size);
  box.dataset.groups = groupNames.join('|');
  box.dataset.centreLabelled = shown.has(centre) ? '1' : '0';
  // The drawn labels' boxes on screen, for whoever checks that none covers another.
  box.dataset.labelBoxes = JSON.stringify(ordered.filter((o) => shown.has(o.id)).map((o) => [o.box.x1, o.box.y1, o.box.x2, o.box.y2].map(Math.round)));
}
