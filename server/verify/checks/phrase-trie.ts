// The Aho-Corasick trie of a phrase list, with fail and dictionary links: what both the dense and the
// sparse matcher run on.

/** What every automaton over a trie offers: the sparse one and the dense table alike. */
export interface PhraseMatcher {
  /**
   * Calls `onMatch` for every occurrence, overlapping ones included, in order of their end (longest
   * first among equal ends); returning false from it stops the scan. `canEndAt(end)`, when given, vets
   * an end position once for all the phrases ending there (they all end with the same unit): a
   * whole-word search skips the positions inside words, so "a", "aa", "aaa"... against a run of a's
   * costs nothing.
   */
  scan(
    text: string,
    onMatch: (phrase: number, start: number, end: number) => unknown,
    canEndAt?: (end: number) => boolean,
  ): void;
}

export interface PhraseTrie {
  /** Child of `node` on `unit`, or undefined. */
  child(node: number, unit: number): number | undefined;
  /** The units that lead out of each node. */
  units: readonly (readonly number[])[];
  /** Longest proper suffix of a node that is also a node. */
  fail: Int32Array;
  /** Nearest node on the fail chain that ends a phrase, or -1, so reporting skips the silent ones. */
  dictionary: Int32Array;
  /** The lowest index of the phrase ending at a node, or -1. */
  output: readonly number[];
  /** Length of the path to a node: the length of the phrase it ends. */
  depth: readonly number[];
}

// All edges live in one map keyed by node and unit: far cheaper to build than a map per node.
const edgeKey = (node: number, unit: number): number => node * 0x10000 + unit;

/** Equal phrases keep the lowest index; empty phrases add nothing. */
export function buildPhraseTrie(phrases: readonly string[]): PhraseTrie {
  const edges = new Map<number, number>();
  const units: number[][] = [[]];
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
        units[node]?.push(unit);
        units.push([]);
        output.push(-1);
        depth.push(k + 1);
      }
      node = next;
    }
    if (output[node] === -1) output[node] = index;
  }
  const size = output.length;
  const fail = new Int32Array(size);
  const dictionary = new Int32Array(size).fill(-1);
  const queue: number[] = [];
  for (const unit of units[0] ?? []) queue.push(edges.get(edgeKey(0, unit)) ?? 0);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] ?? 0;
    for (const unit of units[node] ?? []) {
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
  return { child: (node, unit) => edges.get(edgeKey(node, unit)), units, fail, dictionary, output, depth };
}

/** Reports the phrases ending at `end` in `node` and its dictionary chain; false once onMatch says stop. */
export function reportPhrases(
  trie: PhraseTrie,
  node: number,
  end: number,
  onMatch: (phrase: number, start: number, end: number) => unknown,
): boolean {
  let hit = (trie.output[node] ?? -1) >= 0 ? node : (trie.dictionary[node] ?? -1);
  for (; hit > 0; hit = trie.dictionary[hit] ?? -1) {
    if (onMatch(trie.output[hit] ?? -1, end - (trie.depth[hit] ?? 0), end) === false) return false;
  }
  return true;
}

/** True when a phrase ends at `node`: its own, or one on its fail chain. */
export function endsPhrase(trie: PhraseTrie, node: number): boolean {
  return (trie.output[node] ?? -1) >= 0 || (trie.dictionary[node] ?? -1) >= 0;
}
