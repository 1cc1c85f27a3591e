// Turns the published search index (public/v1/search-index.json) back into MiniSearch's own
// serialisation: each postings list `[gap, gap, -frequency, ...]` (ascending ids as gaps from -1, a
// frequency above 1 as a negative after its id) becomes `{"id": frequency}`. pipeline/search-index.ts
// writes it and says why; the two are held together by a test that round-trips a real index.

/** MiniSearch's `{ "id": frequency }` postings of one term, per field, from the compact lists. */
export function decodePostings(encoded) {
  const postings = {};
  for (const [field, list] of Object.entries(encoded)) {
    const byId = {};
    let id = -1;
    for (const value of list) {
      if (value < 0) byId[id] = -value;
      else {
        id += value;
        byId[id] = 1;
      }
    }
    postings[field] = byId;
  }
  return postings;
}

/** The plain object MiniSearch.loadJS takes, from the published file's `index`. */
export function decodeIndex(index) {
  return { ...index, index: index.index.map(([term, encoded]) => [term, decodePostings(encoded)]) };
}
