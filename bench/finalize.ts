// npm run bench:finalize: FinalizeRun's ranks over generated runs of 10k, 50k and 100k stored pages
// on dynalite (URL, PAGE and six EDGE items a page), printing the peak heap while ranking. The ranks
// read only the run's items into a compact graph (8 bytes a link), never the whole table. Pass sizes as arguments: `-- 10000 50000`.
import { spawn } from 'node:child_process';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { awsClients, type AwsClients } from '../shared/store/aws/clients.js';
import { DynamoGraph } from '../shared/store/aws/dynamo-graph.js';
import { frontierItem, linksItem, pageItem } from '../shared/store/aws/dynamo-items.js';
import { TABLE_DEFINITION } from '../shared/store/aws/table-layout.js';
import type { EdgeRecord, FrontierRow, PageRecord } from '../shared/ports/index.js';
import { machine, publish, today, type BenchTable } from './report.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const LINKS = 6;
const id = (i: number) => i.toString(16).padStart(32, '0');
const url = (i: number) => `https://site${i % 50}.example/page/${i}`;

async function write(emu: { clients: AwsClients }, table: string, items: Array<Record<string, unknown>>): Promise<void> {
  const batches: Array<Array<Record<string, unknown>>> = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches.slice(i, i + 8).map(async (batch) => {
        let pending: unknown[] = batch.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const res = await emu.clients.doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending as never } }));
          pending = res.UnprocessedItems?.[table] ?? [];
        }
      }),
    );
  }
}

// dynalite runs in a process of its own: in this one its table would be counted in the heap measured.
const child = spawn(process.execPath, ['-e', "const s=require('dynalite')({createTableMs:0});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))"], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
const emu = { clients: awsClients({ dynamodb: `http://127.0.0.1:${port}`, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }) };
const results: BenchTable['rows'] = [];
try {
  for (const n of sizes.length ? sizes : [10_000, 50_000, 100_000]) {
    const table = `rank${n}`;
    await emu.clients.dynamo.send(new CreateTableCommand({ TableName: table, ...TABLE_DEFINITION }));
    const started = Date.now();
    for (let lo = 0; lo < n; lo += 5_000) {
      const items: Array<Record<string, unknown>> = [];
      for (let i = lo; i < Math.min(n, lo + 5_000); i++) {
        const row = {
          runId: 1,
          urlId: id(i),
          url: url(i),
          host: `site${i % 50}.example`,
          depth: 1,
          kind: 'page',
          state: 'done',
          inlinks: 0,
          fresh: false,
          redirects: 0,
          attempts: 1,
          notBefore: 0,
          priority: 0,
        } as FrontierRow;
        items.push(frontierItem(row, 0, { shards: 1, queueParts: 1 }));
        items.push(
          pageItem({ runId: 1, urlId: id(i), url: url(i), host: row.host, status: 200, contentHash: `h${i}`, fetchedAt: 1, title: `Page ${i}` } as PageRecord),
        );
        const edges: EdgeRecord[] = [];
        for (let k = 1; k <= LINKS; k++) {
          const to = (i * 7 + k * 131) % n;
          edges.push({
            fromId: id(i),
            snapshot: `h${i}`,
            toId: id(to),
            toUrl: url(to),
            anchor: `to ${to}`,
            context: 'some words around the link',
            section: 'body',
            rel: '',
            internal: true,
            nofollow: false,
          });
        }
        items.push(linksItem(id(i), `h${i}`, edges));
      }
      await write(emu, table, items);
    }
    const wrote = (Date.now() - started) / 1000;
    global.gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
    const t0 = Date.now();
    const ranked = await new DynamoGraph(emu.clients.doc, table).computeRanks(1);
    clearInterval(sample);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    const top = await new DynamoGraph(emu.clients.doc, table).top(3);
    results.push([
      n,
      n * LINKS,
      Number(((Date.now() - t0) / 1000).toFixed(1)),
      Number((base / 2 ** 20).toFixed(0)),
      Number(((peak - base) / 2 ** 20).toFixed(1)),
      Number(((peak - base) / n).toFixed(0)),
    ]);
    console.log(
      `${n} pages, ${n * LINKS} links: ranked ${ranked} in ${((Date.now() - t0) / 1000).toFixed(1)} s; heap ${(base / 2 ** 20).toFixed(0)} MiB before, peak +${((peak - base) / 2 ** 20).toFixed(1)} MiB while ranking (${((((peak - base) / n) * 1024) / 1024).toFixed(0)} B a page); top ${top[0]?.url} (items written in ${wrote.toFixed(0)} s)`,
    );
  }
} finally {
  child.kill();
}
publish({
  bench: 'finalize',
  command: `npm run bench:finalize -- ${sizes.join(' ')}`,
  machine: machine(),
  measured: today(),
  tables: [
    {
      title: "FinalizeRun's ranks over generated runs on dynalite (six links a page):",
      columns: ['pages', 'links', 'ranking (s)', 'heap before (MiB)', 'peak heap while ranking (MiB)', 'bytes a page'],
      rows: results,
    },
  ],
});
