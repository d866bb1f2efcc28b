/** Token precision, recall and F1 of an extracted text against ground truth (bags of lower-cased words). */
export interface TextQuality {
  precision: number;
  recall: number;
  f1: number;
}

function bag(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

export function textQuality(extracted: string, truth: string): TextQuality {
  const got = bag(extracted);
  const want = bag(truth);
  let overlap = 0;
  let gotTotal = 0;
  let wantTotal = 0;
  for (const [w, n] of got) {
    gotTotal += n;
    overlap += Math.min(n, want.get(w) ?? 0);
  }
  for (const n of want.values()) wantTotal += n;
  const precision = gotTotal ? overlap / gotTotal : 0;
  const recall = wantTotal ? overlap / wantTotal : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
