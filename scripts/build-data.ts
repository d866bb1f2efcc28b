// Part of `npm run build`: trawl's own files that the compiled code reads by path at run time (the
// tokenizer's rank table, with the notice of its license), copied beside it in dist/ (tsc copies
// only what is imported).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWN_FILES } from '../shared/extract/runtime-files.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const file of OWN_FILES.flatMap(({ source, notice }) => (notice ? [source, notice] : [source]))) {
  mkdirSync(dirname(join(ROOT, 'dist', file)), { recursive: true });
  copyFileSync(join(ROOT, file), join(ROOT, 'dist', file));
}
