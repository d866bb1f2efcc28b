// What the data directory's maintenance and export answer with: the shapes the library returns
// (`doctor`, `exportData`), kept here so the public types name no adapter.

/** One line of `trawl export`: a page with its extraction (its CSS-selector fields, its values for the extract schema), an edge of a current snapshot, or an interaction; keys in camelCase. */
export type ExportRecord = { type: 'page' | 'edge' | 'interaction' } & Record<string, unknown>;

/** What a damaged database still holds, table by table. */
export interface TableReport {
  table: string;
  /** Rows read (and, when repairing, copied). */
  rows: number;
  /** The first read error, when the table could not be read to its end. */
  error?: string;
}

export interface DoctorReport {
  file: string;
  /** `PRAGMA integrity_check` findings (empty when the file is sound). */
  problems: string[];
  tables: TableReport[];
  /** When repaired: where the damaged file was moved, and the repaired file. */
  repaired?: { damaged: string; rowsCopied: number; rowsLost: boolean };
  /** Nothing can be read (the schema itself is lost, as in a truncated file): the file is left as it is. */
  unreadable?: boolean;
  /** The archive beside the database: WARC files and bodies its fetch records point to. */
  archive?: ArchiveCheck;
}

export interface ArchiveCheck {
  warcFiles: number;
  /** WARC files the records name that are not in `warc/`. */
  missingWarc: string[];
  /** WARC files shorter than the last record the database places in them. */
  truncatedWarc: string[];
  blobs: number;
  missingBlobs: number;
  /** A few of the missing bodies' hashes. */
  missingBlobSample: string[];
}
