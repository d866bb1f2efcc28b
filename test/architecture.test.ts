// The layout holds (docs/architecture.md): no file imports another that imports it back (directly
// or through others), and no module of a lower layer imports one of a higher layer. Imports are
// read as text (type imports included: a circle of types is still a circle a reader must untangle).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROOTS = ['shared', 'functions', 'lib'];
const IMPORT = /(?:^|\s)(?:import|export)\s[^;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'ui' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source file and the source files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ROOTS.flatMap(sources)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)]
      .map((m) => normalize(join(dirname(file), m[1] ?? m[2]!)).replace(/\.js$/, '.ts'))
      .filter((t) => t.endsWith('.ts') && ROOTS.some((r) => t.startsWith(`${r}/`)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/**
 * The layers, lowest first (docs/architecture.md). A module may import its own layer and those
 * below it, never one above. Within `shared/`, a folder's layer is its concept's; `pipeline/` by
 * its sub-folders.
 */
export const LAYERS: Array<{ name: string; modules: string[] }> = [
  { name: 'foundation', modules: ['shared/errors.ts', 'shared/log', 'shared/config', 'shared/url', 'shared/util'] },
  {
    name: 'policy',
    modules: ['shared/fetch', 'shared/robots', 'shared/politeness', 'shared/dedupe', 'shared/extract', 'shared/render', 'shared/enrich'],
  },
  { name: 'ports', modules: ['shared/ports'] },
  { name: 'domain', modules: ['shared/frontier', 'shared/graph', 'shared/archive', 'shared/targets', 'shared/scoring', 'shared/search', 'shared/changes'] },
  { name: 'adapters', modules: ['shared/store'] },
  { name: 'stages', modules: ['shared/pipeline/stages'] },
  { name: 'runtimes', modules: ['shared/pipeline/embedded', 'shared/pipeline/cloud'] },
  { name: 'edges', modules: ['shared/api', 'shared/library', 'shared/cli', 'shared/index.ts', 'shared/types.ts', 'functions', 'lib'] },
];

function layerOf(file: string): number {
  let best = -1;
  let bestLen = -1;
  for (const [i, layer] of LAYERS.entries()) {
    for (const m of layer.modules) if ((file === m || file.startsWith(`${m}/`)) && m.length > bestLen) [best, bestLen] = [i, m.length];
  }
  return best;
}

test('no file imports a file that imports it back', () => {
  const found = circles(importGraph());
  assert.deepEqual(
    found.map((c) => c.join(' → ')),
    [],
    'break each circle by moving what both sides need into a module that imports neither',
  );
});

test('no folder imports a folder that imports it back (a folder of shared/ and its sub-folders are one)', () => {
  // Folder to folder: a file's folder (under shared/, its top folder there) imports the folder of each file it imports.
  const folderOf = (file: string) => {
    const parts = file.split('/');
    return parts[0] === 'shared' && parts.length > 2 ? `shared/${parts[1]}` : dirname(file);
  };
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph()) {
    const from = folderOf(file);
    for (const t of targets) {
      const to = folderOf(t);
      if (to === from || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) continue;
      (folders.get(from) ?? folders.set(from, new Set()).get(from)!).add(to);
    }
  }
  const graph = new Map([...folders].map(([f, to]) => [f, [...to]]));
  assert.deepEqual(
    circles(graph).map((c) => c.join(' → ')),
    [],
    'break each folder loop by moving what both folders need into one of them, or into a folder below both',
  );
});

test('no function takes more than five positional parameters (an options object names the rest)', () => {
  const found: string[] = [];
  for (const file of ROOTS.flatMap(sources)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      // Functions we write (a WebAssembly export's type is the module's own).
      const written =
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node);
      if (written && node.parameters.length > 5) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file}:${line + 1} takes ${node.parameters.length}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual(found, []);
});

/** The most lines a function of the product may span: past it, its steps become functions of their own. */
const MAX_FUNCTION_LINES = 120;

test(`no function spans more than ${MAX_FUNCTION_LINES} lines`, () => {
  const found: string[] = [];
  for (const file of ROOTS.flatMap(sources)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const fn =
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node);
      if (fn && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
        if (lines > MAX_FUNCTION_LINES) found.push(`${file}:${first + 1} spans ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual(found, []);
});

test('every module sits in a layer and imports nothing from a layer above it; the runtimes never import each other', () => {
  const problems: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = layerOf(file);
    if (from < 0) {
      problems.push(`${file} is in no layer: add its folder to LAYERS and docs/architecture.md`);
      continue;
    }
    for (const t of targets) {
      const to = layerOf(t);
      if (to > from) problems.push(`${file} (${LAYERS[from]!.name}) imports ${relative('.', t)} (${LAYERS[to]!.name})`);
      const runtime = (p: string) => /^shared\/pipeline\/(embedded|cloud)\//.exec(p)?.[1];
      if (runtime(file) && runtime(t) && runtime(file) !== runtime(t)) problems.push(`${file} imports the other runtime's ${t}`);
    }
  }
  assert.deepEqual(problems, []);
});

/** The modules a file loads when it is imported: static imports that are not type-only (a dynamic import loads on demand). */
function loadedModules(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const STATIC = /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^;]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('.')) visit(normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
      else if (!spec.startsWith('node:')) packages.set(spec, file);
    }
  };
  visit(entry);
  return { files, packages };
}

test('the extraction worker and the writer thread load no zod (~3.4 MB of heap in every isolate that does)', () => {
  for (const entry of ['shared/extract/run-extract.ts', 'shared/store/local/sqlite-writer-thread.ts']) {
    const { files, packages } = loadedModules(entry);
    assert.ok(files.size > 3, `${entry} and what it imports were read`);
    assert.equal(packages.get('zod'), undefined, `${entry} loads zod through ${packages.get('zod')}: keep checks of user input out of its modules`);
  }
});

test('the benches, the scripts and the test support import nothing from test/ (what they share with the tests is in support/)', () => {
  const found: string[] = [];
  for (const root of ['bench', 'scripts', 'support']) {
    const files = readdirSync(root, { recursive: true }) as string[];
    for (const name of files.filter((f) => /\.(ts|mts|mjs)$/.test(f))) {
      const file = join(root, name);
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = normalize(join(dirname(file), m[1] ?? m[2]!));
        if (target.startsWith('test/')) found.push(`${file} → ${target}`);
      }
    }
  }
  assert.deepEqual(found, [], 'move what a bench or script needs from test/ into support/');
});
