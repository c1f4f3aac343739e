/**
 * "Did you mean X?" suggestions for misspelt keys and enum values. Picks the closest candidate by
 * case-insensitive edit distance (with transpositions), by the same words in another order, or by
 * one name containing the other; returns nothing when no candidate is reasonably close.
 */

/** Words longer than this get no suggestion (keeps the cost bounded on hostile input). */
const MAX_WORD_LENGTH = 64;

const normalisedCache = new Map<string, string>();

function normalise(word: string): string {
  return word.toLowerCase().replaceAll('-', '_');
}

/** Candidates come from small fixed lists, so their normal forms are cached. */
function normaliseCandidate(candidate: string): string {
  let found = normalisedCache.get(candidate);
  if (found === undefined) {
    found = normalise(candidate);
    if (normalisedCache.size < 1024) normalisedCache.set(candidate, found);
  }
  return found;
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  return boundedDistance(a, b, Number.MAX_SAFE_INTEGER);
}

/** Rows reused across calls (words are at most MAX_WORD_LENGTH long, candidates short). */
let rows = [new Uint32Array(0), new Uint32Array(0), new Uint32Array(0)] as const;

/** The distance when it is at most `max`, otherwise some number above `max` (cheaply). */
function boundedDistance(a: string, b: string, max: number): number {
  const m = a.length;
  const n = b.length;
  if (Math.abs(m - n) > max) return max + 1;
  if (m === 0) return n;
  if (n === 0) return m;
  if (rows[0].length < n + 1) {
    rows = [new Uint32Array(n + 1), new Uint32Array(n + 1), new Uint32Array(n + 1)];
  }
  let [prevPrev, prev, current] = rows;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    current[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      let best = Math.min(
        (prev[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        best = Math.min(best, (prevPrev[j - 2] ?? 0) + 1);
      }
      current[j] = best;
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, current] = [prev, current, prevPrev];
  }
  return prev[n] ?? 0;
}

/** How many edits a word of this length may be away from a suggestion. */
function threshold(length: number): number {
  if (length <= 3) return 1;
  if (length <= 6) return 2;
  return 3;
}

function sameWords(a: string, b: string): boolean {
  if (a.length !== b.length || !a.includes('_')) return false;
  const wa = a.split('_').filter((w) => w !== '');
  const wb = b.split('_').filter((w) => w !== '');
  if (wa.length < 2 || wa.length !== wb.length) return false;
  return [...wa].sort().join('_') === [...wb].sort().join('_');
}

/**
 * The candidate `word` most likely meant, or `undefined`. Case and `-`/`_` differences count as
 * exact matches; `word` itself is never returned.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length === 0 || word.length > MAX_WORD_LENGTH) return undefined;
  const w = normalise(word);
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const c = normaliseCandidate(candidate);
    let score: number;
    if (c === w) score = 0;
    else if (sameWords(w, c)) score = 0.5;
    else {
      const limit = threshold(Math.min(w.length, c.length));
      const distance = boundedDistance(w, c, limit);
      if (distance <= limit) score = distance;
      else if (w.length >= 4 && c.length >= 4 && (c.includes(w) || w.includes(c))) {
        score = 10 + Math.abs(c.length - w.length);
      } else continue;
    }
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}

/** ` (did you mean "X"?)`, or an empty string when there is no suggestion. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const found = suggest(word, candidates);
  return found === undefined ? '' : ` (did you mean "${found}"?)`;
}
