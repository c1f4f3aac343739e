/**
 * Did-you-mean suggestions: close misspellings, case and separator differences, reordered words
 * and contained names are suggested; unrelated words are not.
 */
import { describe, expect, it } from 'vitest';

import {
  didYouMean,
  editDistance,
  suggest,
} from '../../../src/foundation/diagnostics/did-you-mean.js';

const FIELDS = [
  'transport',
  'command',
  'args',
  'cwd',
  'env',
  'env_vars',
  'url',
  'enabled_tools',
  'default_tools_approval_mode',
  'startup_timeout_sec',
  'tool_timeout_sec',
  'tools',
];

describe('suggest', () => {
  it.each([
    ['comand', 'command'],
    ['commnad', 'command'],
    ['enabled_tool', 'enabled_tools'],
    ['tools_enabled', 'enabled_tools'],
    ['Default_Tools_Approval_Mode', 'default_tools_approval_mode'],
    ['default-tools-approval-mode', 'default_tools_approval_mode'],
    ['env_var', 'env_vars'],
    ['urls', 'url'],
    ['trasnport', 'transport'],
    ['startup_timeout', 'startup_timeout_sec'],
  ])('%s → %s', (word, expected) => {
    expect(suggest(word, FIELDS)).toBe(expected);
  });

  it.each(['colour', 'xyz', 'description', 'model'])('%s has no suggestion', (word) => {
    expect(suggest(word, FIELDS)).toBeUndefined();
  });

  it('never suggests the word itself and ignores overlong words', () => {
    expect(suggest('command', ['command'])).toBeUndefined();
    expect(suggest('c'.repeat(1000), ['command'])).toBeUndefined();
    expect(suggest('', ['command'])).toBeUndefined();
  });

  it('formats a suggestion for a message', () => {
    expect(didYouMean('aprove', ['auto', 'prompt', 'writes', 'approve'])).toBe(
      ' (did you mean "approve"?)',
    );
    expect(didYouMean('zzzzzz', ['auto'])).toBe('');
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and transpositions', () => {
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('abc', 'abd')).toBe(1);
    expect(editDistance('abc', 'acb')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});
