/**
 * 32-bit hash of a feature name (FNV-1a over UTF-16 code units, then MurmurHash3's finaliser so that
 * similar names such as n-grams spread over all bits). Deterministic across platforms and processes: the
 * stored vectors depend on it, so changing it changes the embedding space.
 */
export function hashFeature(name: string, prefix = ""): number {
  // hashFeature(name, prefix) === hashFeature(prefix + name), without building that string.
  let hash = 0x811c9dc5;
  for (let index = 0; index < prefix.length; index++) {
    hash = Math.imul(hash ^ prefix.charCodeAt(index), 0x01000193);
  }
  for (let index = 0; index < name.length; index++) {
    hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The hash of a word feature (stem, translation, compound part, n-gram) as projection uses it. The
 * prefix is historical: it keeps the embedding space of the vectors already stored.
 */
export function featureHash(name: string): number {
  return hashFeature(name, "s:");
}

/** The `copy`-th further hash derived from a feature's hash (count sketch with several dimensions). */
export function rehash(hash: number, copy: number): number {
  let mixed = (hash + Math.imul(copy, 0x9e3779b9)) >>> 0;
  mixed ^= mixed >>> 16;
  mixed = Math.imul(mixed, 0x85ebca6b);
  mixed ^= mixed >>> 13;
  mixed = Math.imul(mixed, 0xc2b2ae35);
  mixed ^= mixed >>> 16;
  return mixed >>> 0;
}
