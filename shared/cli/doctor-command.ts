import { join } from 'node:path';
import { doctor, rebuild, type DoctorReport, type RebuildResult } from '../library/maintenance.js';
import { counted } from './render.js';
import { DB_FILE } from '../store/local/sqlite-store.js';
import { jsonLine } from './render.js';

/** How many of a report's problems are the archive's (one line each for WARC missing, WARC cut short, bodies missing). */
function archiveProblemCount(a: DoctorReport['archive']): number {
  if (!a) return 0;
  return (a.missingWarc.length ? 1 : 0) + (a.truncatedWarc.length ? 1 : 0) + (a.missingBlobs ? 1 : 0);
}

function describe(report: DoctorReport): string[] {
  const lines = [report.problems.length ? `${report.file}: ${report.problems.length} problem(s) found:` : `${report.file}: no damage found`];
  for (const p of report.problems.slice(0, 20)) lines.push(`  ${p}`);
  for (const t of report.tables) lines.push(`  ${t.table.padEnd(16)} ${String(t.rows).padStart(8)} rows${t.error ? `  (read stopped: ${t.error})` : ''}`);
  const a = report.archive;
  if (a) {
    lines.push(
      `  archive: ${a.warcFiles} WARC file(s), ${a.missingWarc.length} missing, ${a.truncatedWarc.length} cut short; ${a.blobs} bodies, ${a.missingBlobs} missing`,
    );
  }
  const databaseSound = !report.unreadable && report.tables.every((t) => !t.error) && report.problems.length === archiveProblemCount(a);
  if (a && archiveProblemCount(a) > 0 && databaseSound) {
    lines.push(
      'the database is sound; what is missing from warc/ or blobs/ cannot be rebuilt from it: restore those files from a backup (replay and re-extraction skip the pages they held)',
    );
    return lines;
  }
  if (report.repaired) {
    lines.push(`repaired: ${report.repaired.rowsCopied} rows copied into a new ${DB_FILE}; the damaged file is kept as ${report.repaired.damaged}`);
    if (report.repaired.rowsLost)
      lines.push(
        'some rows could not be read and are missing; the WARC archive (warc/, every raw response) and the large bodies (blobs/) are untouched: trawl replay --reextract rebuilds extractions from them',
      );
  } else if (report.unreadable) {
    lines.push(
      `nothing can be salvaged from it: trawl doctor --rebuild --data ${join(report.file, '..')} makes a new one from the WARC files in warc/ (every raw response, separate and intact), or restore it from a backup`,
    );
  } else if (report.problems.length || report.tables.some((t) => t.error)) {
    lines.push(`run trawl doctor --repair --data ${join(report.file, '..')} to salvage what can be read`);
  }
  return lines;
}

function describeRebuild(r: RebuildResult): string[] {
  const pages = r.runs.reduce((n, run) => n + run.pages, 0);
  const answers = r.runs.reduce((n, run) => n + run.answers, 0);
  const lines = [
    `rebuilt ${r.file} from ${counted(r.warcFiles, 'WARC file')}: ${counted(r.runs.length, 'run')}, ${counted(answers, 'archived answer')}, ${counted(pages, 'page')}`,
  ];
  if (r.damaged) lines.push(`the database that was there is kept as ${r.damaged}`);
  if (r.enriched) lines.push(`search index: ${counted(r.enriched.enriched, 'page')} enriched`);
  if (r.renderedViews)
    lines.push(
      `${counted(r.renderedViews, 'rendered view')} in the archive: their pages were extracted as served (trawl crawl --render always renders them again)`,
    );
  for (const f of r.failed.slice(0, 10)) lines.push(`  not processed: ${f.url}: ${f.error}`);
  return lines;
}

/** `trawl doctor --rebuild`: a new database from the WARC files; the one there is kept aside. */
export async function rebuildCommand(dataDir: string, json: boolean, out: (line: string) => void): Promise<RebuildResult> {
  const result = await rebuild({ data: dataDir });
  if (json) out(jsonLine({ type: 'rebuild', ...result }));
  else for (const line of describeRebuild(result)) out(line);
  return result;
}

/** `trawl doctor [--repair]`: checks the data directory's database and salvages a damaged one. */
export async function doctorCommand(dataDir: string, flags: { repair?: boolean }, json: boolean, out: (line: string) => void): Promise<DoctorReport> {
  const report = await doctor(dataDir, { repair: flags.repair });
  if (json) out(jsonLine({ type: 'doctor', ...report }));
  else for (const line of describe(report)) out(line);
  return report;
}
