/**
 * How alike a German and an English word are spelled, in [0, 1]: the Dice coefficient of their letter
 * bigrams after folding the spellings the two languages write differently (umlauts, ß, k/c, z/c, ph/f).
 * Kabarett/cabaret 0.92, Universität/university 0.84, Haus/house 0.29. Below 0.5 it is chance; 0 then.
 */
const THRESHOLD = 0.5;

function fold(word: string): string {
  return word
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/ä/g, "a")
    .replace(/ö/g, "o")
    .replace(/ü/g, "u")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/ph/g, "f")
    .replace(/[kz]/g, "c")
    .replace(/[^a-z0-9]/g, "");
}

/** Letter bigrams as sorted numbers (two UTF-16 code units), so shared ones are counted by a merge. */
function bigrams(word: string): number[] {
  const codes: number[] = [];
  for (let index = 0; index + 1 < word.length; index++) {
    codes.push(word.charCodeAt(index) * 65536 + word.charCodeAt(index + 1));
  }
  return codes.sort((left, right) => left - right);
}

export function cognateSimilarity(left: string, right: string): number {
  const leftGrams = bigrams(fold(left));
  const rightGrams = bigrams(fold(right));
  const total = leftGrams.length + rightGrams.length;
  if (total === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < leftGrams.length && j < rightGrams.length; ) {
    const difference = (leftGrams[i] ?? 0) - (rightGrams[j] ?? 0);
    if (difference === 0) {
      shared++;
      i++;
      j++;
    } else if (difference < 0) i++;
    else j++;
  }
  const dice = (2 * shared) / total;
  return dice >= THRESHOLD ? dice : 0;
}
