/**
 * A binary heap of items ranked by a number each; `before(a, aKey, b, bKey)` is true when a comes
 * out first. Items and keys sit in two arrays (the keys unboxed), so a queued item costs two array
 * slots and no object of its own.
 */
export class Heap<T> {
  private items: T[] = [];
  private keys: number[] = [];

  constructor(private readonly before: (a: T, aKey: number, b: T, bKey: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** The key of the item `peek` returns; NaN when the heap is empty. */
  peekKey(): number {
    return this.keys[0] ?? NaN;
  }

  push(item: T, key: number): void {
    this.items.push(item);
    this.keys.push(key);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.comes(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): T | undefined {
    const { items, keys } = this;
    const top = items[0];
    const last = items.pop();
    const lastKey = keys.pop();
    if (items.length > 0 && last !== undefined && lastKey !== undefined) {
      items[0] = last;
      keys[0] = lastKey;
      this.siftDown(0);
    }
    return top;
  }

  /** Keeps only the items `keep` accepts, in heap order again (linear time). */
  retain(keep: (item: T, key: number) => boolean): void {
    const items: T[] = [];
    const keys: number[] = [];
    for (let i = 0; i < this.items.length; i++) {
      if (!keep(this.items[i]!, this.keys[i]!)) continue;
      items.push(this.items[i]!);
      keys.push(this.keys[i]!);
    }
    this.items = items;
    this.keys = keys;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private comes(i: number, j: number): boolean {
    return this.before(this.items[i]!, this.keys[i]!, this.items[j]!, this.keys[j]!);
  }

  private swap(i: number, j: number): void {
    const { items, keys } = this;
    [items[i], items[j]] = [items[j]!, items[i]!];
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }

  private siftDown(start: number): void {
    const n = this.items.length;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n && this.comes(l, best)) best = l;
      if (r < n && this.comes(r, best)) best = r;
      if (best === i) return;
      this.swap(i, best);
      i = best;
    }
  }
}
