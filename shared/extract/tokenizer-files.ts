/**
 * The tokenizer's module specifiers, named once: chunks.ts loads them by path at run time, and
 * lib/stages.ts ships their files beside every Lambda stage whose bundle names them.
 */
export const TIKTOKEN_LITE = 'tiktoken/lite';
export const CL100K_RANKS = 'tiktoken/encoders/cl100k_base.json';
