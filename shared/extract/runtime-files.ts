/**
 * Module specifiers that extraction loads by path at run time, named once: chunks.ts and pdf.ts
 * resolve them, and lib/stages.ts ships their files beside every Lambda stage whose bundle names them.
 */
export const TIKTOKEN_LITE = 'tiktoken/lite';
export const CL100K_RANKS = 'tiktoken/encoders/cl100k_base.json';
/** pdf.js's serverless build, one file in unpdf (the PDF worker imports it by URL). */
export const PDFJS_MODULE = 'unpdf/pdfjs';
