// The docs' JavaScript snippets, run as written: a block of docs/api-and-ui.md is saved as a file
// of its own, with `@mendable/firecrawl-js` resolving to an installed version of the SDK.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Runs a JavaScript block of docs/api-and-ui.md (the one whose first line names `file`) as a file of
 * its own, with `@mendable/firecrawl-js` resolving to the installed package `sdk`.
 */
export async function runSnippet(
  file: string,
  sdk: string,
  args: string | string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const doc = readFileSync('docs/api-and-ui.md', 'utf8');
  const block = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith(`// ${file} `));
  assert.ok(block, `docs/api-and-ui.md shows ${file}`);
  const dir = mkdtempSync(join(tmpdir(), 'trawl-snippet-'));
  try {
    mkdirSync(join(dir, 'node_modules', '@mendable'), { recursive: true });
    symlinkSync(resolve('node_modules', sdk), join(dir, 'node_modules', '@mendable', 'firecrawl-js'));
    writeFileSync(join(dir, file), block);
    // Not spawnSync: the server answering the snippet runs in this process.
    return await new Promise((done) =>
      execFile(
        process.execPath,
        [join(dir, file), ...(Array.isArray(args) ? args : [args])],
        { env: { ...process.env, ...env }, timeout: 60_000 },
        (err, stdout, stderr) => done({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
