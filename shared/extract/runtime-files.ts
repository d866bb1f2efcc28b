/**
 * Files that extraction loads by path at run time, named once: chunks.ts and pdf.ts resolve them,
 * and lib/stages.ts ships them beside every Lambda stage whose bundle names them.
 */
/** cl100k_base's rank table (tiktoken's `encoders/cl100k_base.json`), trawl's own file beside the tokenizer (cl100k.ts). */
export const CL100K_RANKS = 'cl100k_base.json';
/** Where CL100K_RANKS is in a source checkout (`npm run build` copies it beside the compiled module and the stages). */
export const CL100K_RANKS_SOURCE = 'shared/extract/cl100k_base.json';
/** pdf.js's serverless build, one file in unpdf (the PDF worker imports it by URL). */
export const PDFJS_MODULE = 'unpdf/pdfjs';

/**
 * trawl's own files that code reads by path at run time: the tokenizer's rank table (chunks.ts),
 * with the notice of its license. `npm run build` copies them into dist/shared
 * (scripts/build-data.ts); lib/stages.ts ships each beside every Lambda stage whose bundle names
 * it (without it a stage fails at its cold start), from dist/shared for a prebuilt stage and from
 * the source in a checkout.
 */
export const OWN_FILES: ReadonlyArray<{ name: string; source: string; notice?: string }> = [
  { name: CL100K_RANKS, source: CL100K_RANKS_SOURCE, notice: CL100K_RANKS_SOURCE.replace(/\.json$/, '.NOTICE') },
];
