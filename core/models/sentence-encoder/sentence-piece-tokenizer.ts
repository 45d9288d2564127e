/**
 * SentencePiece unigram segmentation as the Universal Sentence Encoder lite was trained with it (the
 * TensorFlow.js port's tokenizer, reproduced): NFKC, "▁" before the text and for every space, then
 * the highest-scoring segmentation into vocabulary pieces (Viterbi over log probabilities); a
 * character no piece covers is the unknown id 0, and runs of unknowns collapse into one.
 */
const SPACE = "\u2581";
/** Ids 0–5 are reserved; pieces start at 6. */
const RESERVED = 6;
const UNKNOWN = 0;

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  /** Piece id and score if a piece ends here. */
  id: number;
  score: number;
}

const newNode = (): TrieNode => ({ children: new Map(), id: -1, score: 0 });

export interface SentencePieceTokenizer {
  encode(text: string, maxTokens: number): number[];
}

export function createSentencePieceTokenizer(
  vocabulary: readonly (readonly [string, number])[],
): SentencePieceTokenizer {
  const root = newNode();
  const pieceLength: number[] = vocabulary.map(([piece]) => [...piece].length);
  for (let id = RESERVED; id < vocabulary.length; id++) {
    const entry = vocabulary[id];
    if (entry === undefined) continue;
    let node = root;
    for (const symbol of entry[0]) {
      let next = node.children.get(symbol);
      if (next === undefined) {
        next = newNode();
        node.children.set(symbol, next);
      }
      node = next;
    }
    node.id = id;
    node.score = entry[1];
  }
  return {
    encode(text, maxTokens) {
      const normalized = text.normalize("NFKC");
      if (normalized.length === 0) return [];
      const symbols = [...(SPACE + normalized.replace(/ /gu, SPACE))];
      const n = symbols.length;
      // best[i]: the best score of a segmentation of symbols[0, i); 0 means none yet (scores are
      // negative log probabilities, an unknown scores 0), as in the reference implementation.
      const best = new Float64Array(n + 1);
      const word = new Int32Array(n + 1);
      const wordLength = new Int32Array(n + 1);
      // Candidates by end position, in the reference's order: by start, then by length.
      const ends: { start: number; id: number; score: number; length: number }[][] = Array.from(
        { length: n + 1 },
        () => [],
      );
      for (let i = 0; i < n; i++) {
        let node = root.children.get(symbols[i] ?? "");
        let found = false;
        for (let j = i; node !== undefined && j < n; j++) {
          if (node.id >= 0) {
            ends[j + 1]?.push({ start: i, id: node.id, score: node.score, length: j + 1 - i });
            found = true;
          }
          node = node.children.get(symbols[j + 1] ?? "");
        }
        if (!found) ends[i + 1]?.push({ start: i, id: UNKNOWN, score: 0, length: 1 });
      }
      for (let end = 1; end <= n; end++) {
        const candidates = (ends[end] ?? []).sort((a, b) => a.start - b.start);
        for (const c of candidates) {
          const score = c.score + (best[end - c.length] ?? 0);
          if (best[end] === 0 || score >= (best[end] ?? 0)) {
            best[end] = score;
            word[end] = c.id;
            wordLength[end] = c.length;
          }
        }
      }
      const reversed: number[] = [];
      for (let at = n; at > 0; ) {
        const id = word[at] ?? UNKNOWN;
        reversed.push(id);
        at -= id === UNKNOWN ? (wordLength[at] ?? 1) : (pieceLength[id] ?? 1);
      }
      const ids: number[] = [];
      for (let i = reversed.length - 1; i >= 0; i--) {
        const id = reversed[i] ?? UNKNOWN;
        if (!(id === UNKNOWN && ids.at(-1) === UNKNOWN)) ids.push(id);
      }
      return ids.slice(0, maxTokens);
    },
  };
}
