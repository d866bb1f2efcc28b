/**
 * Files that extraction loads by path at run time, named once: chunks.ts and pdf.ts resolve them,
 * and lib/stages.ts and scripts/build-lambdas.ts ship them beside every Lambda stage whose bundle
 * names them.
 */
/** cl100k_base's rank table (tiktoken's `encoders/cl100k_base.json`), trawl's own file beside the tokenizer (cl100k.ts). */
export const CL100K_RANKS = 'cl100k_base.json';
/** Where CL100K_RANKS is in a source checkout (`npm run build` copies it beside the compiled module and the stages). */
export const CL100K_RANKS_SOURCE = 'shared/extract/cl100k_base.json';
/** pdf.js's serverless build, one file in unpdf (the PDF worker imports it by URL). */
export const PDFJS_MODULE = 'unpdf/pdfjs';
