// Aho-Corasick over UTF-16 units: all phrases in one pass, linear in the text plus the matches reported.
// Phrases are plain text, never patterns, so a redlist term cannot smuggle in a regular expression.

export interface PhraseMatcher {
  /**
   * Calls `onMatch` for every occurrence, overlapping ones included, in order of their end; returning
   * false from it stops the scan. `canEndAt(end)`, when given, vets an end position once for all the
   * phrases ending there (they all end with the same unit): a whole-word search skips the positions
   * inside words, so "a", "aa", "aaa"... against a run of a's costs nothing.
   */
  scan(
    text: string,
    onMatch: (phrase: number, start: number, end: number) => unknown,
    canEndAt?: (end: number) => boolean,
  ): void;
}

// All edges live in one map keyed by node and unit: far cheaper to build than a map per node.
const edgeKey = (node: number, unit: number): number => node * 0x10000 + unit;

/** Builds a matcher; equal phrases report the lowest index. Empty phrases never match. */
export function createPhraseMatcher(phrases: readonly string[]): PhraseMatcher {
  const edges = new Map<number, number>();
  const childrenOf: number[][] = [[]];
  const output: number[] = [-1];
  const depth: number[] = [0];
  for (const [index, phrase] of phrases.entries()) {
    if (phrase.length === 0) continue;
    let node = 0;
    for (let k = 0; k < phrase.length; k++) {
      const unit = phrase.charCodeAt(k);
      let next = edges.get(edgeKey(node, unit));
      if (next === undefined) {
        next = output.length;
        edges.set(edgeKey(node, unit), next);
        childrenOf[node]?.push(unit);
        childrenOf.push([]);
        output.push(-1);
        depth.push(k + 1);
      }
      node = next;
    }
    if (output[node] === -1) output[node] = index;
  }
  const size = output.length;
  const fail = new Int32Array(size);
  // Nearest node on the fail chain that ends a phrase, so reporting skips the silent ones.
  const dictionary = new Int32Array(size).fill(-1);
  const queue: number[] = [];
  for (const unit of childrenOf[0] ?? []) queue.push(edges.get(edgeKey(0, unit)) ?? 0);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] ?? 0;
    for (const unit of childrenOf[node] ?? []) {
      const child = edges.get(edgeKey(node, unit)) ?? 0;
      let f = fail[node] ?? 0;
      while (f !== 0 && !edges.has(edgeKey(f, unit))) f = fail[f] ?? 0;
      const target = edges.get(edgeKey(f, unit));
      fail[child] = target !== undefined && target !== child ? target : 0;
      const via = fail[child] ?? 0;
      dictionary[child] = (output[via] ?? -1) >= 0 ? via : (dictionary[via] ?? -1);
      queue.push(child);
    }
  }
  return {
    scan(text, onMatch, canEndAt) {
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        let next = edges.get(edgeKey(node, unit));
        while (next === undefined && node !== 0) {
          node = fail[node] ?? 0;
          next = edges.get(edgeKey(node, unit));
        }
        node = next ?? 0;
        let hit = (output[node] ?? -1) >= 0 ? node : (dictionary[node] ?? -1);
        if (hit > 0 && canEndAt && !canEndAt(i + 1)) continue;
        for (; hit > 0; hit = dictionary[hit] ?? -1) {
          if (onMatch(output[hit] ?? -1, i + 1 - (depth[hit] ?? 0), i + 1) === false) return;
        }
      }
    },
  };
}
