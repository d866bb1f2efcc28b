// Apart from change-settings.ts, which needs zod: the store's writer thread names the kinds and
// does not load zod (~3.4 MB of live heap and ~6 MiB of RSS in every isolate that imports it).

/**
 * What changed between runs, per URL (`trawl changes`). A URL has at most one content kind in a run
 * (`new`, `changed`, `unchanged`, `removed`) and any of the link kinds (`orphaned`, `newly-linked`,
 * `rank-shift`).
 */
export const CHANGE_KINDS = ['new', 'changed', 'unchanged', 'removed', 'orphaned', 'newly-linked', 'rank-shift'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
