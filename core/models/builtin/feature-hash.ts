/**
 * 32-bit hash of a feature name (FNV-1a over UTF-16 code units, then MurmurHash3's finaliser so that
 * similar names such as n-grams spread over all bits). Deterministic across platforms and processes: the
 * stored vectors depend on it, so changing it changes the embedding space.
 */
export function hashFeature(name: string): number {
  let hash = 0x811c9dc5;
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
