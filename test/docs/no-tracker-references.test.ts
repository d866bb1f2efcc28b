// The manual and the code speak to their readers, who cannot resolve a tracker's numbers or a
// commit's hash: no "issue N" in the docs, the README or any comment of the source, tests, benches
// and scripts, and no commit hashes in the manual or a comment (history, by version, is the changelog's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOTS = ['shared', 'lib', 'functions', 'test', 'bench', 'scripts', 'bin', 'examples', 'docs', 'localstack'];
const TEXT = /\.(ts|mts|mjs|js|md|sh)$/;
const SKIP = new Set(['node_modules', 'dist', 'fixtures', 'generated']);
const REFERENCE = /\b[Ii]ssues? #?\d+/;
/** A short commit hash standing alone: 7–10 hex digits with a letter and a digit (not part of a path, URL or longer id). */
const COMMIT = /(?<![\w/.:-])(?=[0-9a-f]{7,10}\b)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,10}\b/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

test('no tracker references ("issue 30") in the manual or in code comments, no commit hashes in the manual', () => {
  const found: string[] = [];
  const paths = ['README.md', ...ROOTS.filter((r) => statSync(r, { throwIfNoEntry: false })?.isDirectory()).flatMap((r) => [...files(r)])];
  // This file names the pattern it looks for.
  for (const path of paths.filter((p) => !p.endsWith('no-tracker-references.test.ts')))
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        // In code, a comment line (hex ids in code and fixtures are data).
        const comment = path.endsWith('.md') || /^\s*(\/\/|\*|\/\*)/.test(line);
        if (REFERENCE.test(line) || (comment && COMMIT.test(line))) found.push(`${path}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  assert.ok(paths.length > 200, 'the tree was read');
  assert.deepEqual(found, []);
});
