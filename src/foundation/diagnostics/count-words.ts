/**
 * Counts in messages: `1 tool`, `3 tools`, `1 line`, with the noun in the right number.
 */

/** `n noun` with the noun made plural (by `plural`, default `noun + "s"`) unless n is 1. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
