// The checks before the tests: the type check and the linter at once (one core each; each took
// 15–35 s on its own, one after the other), then the web UI's bundle the tests serve.
import { spawn, spawnSync } from 'node:child_process';

function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ script, code, out }));
  });
}

const results = await Promise.all([run('typecheck'), run('lint')]);
for (const r of results) if (r.out.trim()) process.stdout.write(`> ${r.script}\n${r.out}`);
const failed = results.filter((r) => r.code !== 0);
if (failed.length) {
  process.stderr.write(`failed: ${failed.map((r) => r.script).join(', ')}\n`);
  process.exit(1);
}
process.exit(spawnSync('npm', ['run', '--silent', 'build:ui'], { stdio: 'inherit' }).status ?? 1);
