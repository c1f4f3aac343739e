/**
 * What Codex gets from a server and what the calls log keeps: credential values masked in every
 * string, key and number of any answer (resource texts and blobs, prompt messages, completion
 * values), a base64 blob masked inside its bytes; a value split over content items, array items,
 * nested arrays, a key and its value, character codes or zero-width characters masked part by
 * part, wherever the argument check would find it; innocuous answers left exactly as they are;
 * previews of recorded params masked in strings, numbers and keys, and whole when split.
 */
import { describe, expect, it } from 'vitest';

import { summarizeArguments } from '../../../src/runtime/gateway/call-record.js';
import {
  credentialMatcher,
  findCredentialIn,
} from '../../../src/foundation/diagnostics/credential-scan.js';
import { MAX_JOINED_MASKS, maskAnswer } from '../../../src/runtime/gateway/mask-answer.js';

const CREDENTIAL = 'answer-canary-3c1f7a';
const DIGITS = '80417362519';
const secrets = [CREDENTIAL, DIGITS];
const matcher = credentialMatcher(secrets);
const hex = (v: string): string => Buffer.from(v).toString('hex');
const forms = (v: string): string[] => [
  v,
  Buffer.from(v).toString('hex'),
  Buffer.from(v).toString('base64').slice(4, 16),
];

describe('answers and records', () => {
  it('masks resource texts, blobs at any alignment, prompt messages, numbers and keys', () => {
    for (const prefix of ['', 'a', 'ab', 'blob ']) {
      const blob = Buffer.from(`${prefix}${CREDENTIAL} end`).toString('base64');
      const { value: answer, mask } = maskAnswer(
        {
          contents: [
            { uri: 'note://one', text: `holds ${CREDENTIAL}` },
            { uri: 'note://one#blob', blob },
          ],
          messages: [{ role: 'user', content: { type: 'text', text: `x ${CREDENTIAL}` } }],
          completion: { values: [Buffer.from(CREDENTIAL).toString('hex')] },
          n: Number(DIGITS),
          [CREDENTIAL]: true,
          other: 80417362518,
        },
        matcher,
        secrets,
      );
      const text = JSON.stringify(answer);
      for (const form of [...forms(CREDENTIAL), DIGITS]) expect(text).not.toContain(form);
      expect(mask).toBe('credential-in-answer');
      expect(answer?.other).toBe(80417362518);
      const masked = Buffer.from(answer?.contents[1]?.blob ?? '', 'base64').toString();
      expect(masked).toBe(`${prefix}*** end`);
    }
  });

  it('masks each part of a value met only when parts are joined, as the argument check joins them', () => {
    const codes = (t: string): number[] => Array.from(t).map((c) => c.codePointAt(0) ?? 0);
    const cases: [string, unknown][] = [
      [
        'two content items',
        {
          content: [
            { type: 'text', text: 'answer-canary-' },
            { type: 'text', text: '3c1f7a' },
          ],
        },
      ],
      ['structuredContent char codes', { structuredContent: { codes: codes(CREDENTIAL) } }],
      ['UTF-8 bytes', { bytes: [...Buffer.from(`x ${CREDENTIAL}`)] }],
      ['nested char codes', { d: [codes('answer-'), [codes('canary-'), codes('3c1f7a')]] }],
      [
        'nested strings',
        {
          d: [
            ['x', 'answer-canary'],
            [['-3c1f'], '7a'],
          ],
        },
      ],
      ['key and value', { 'answer-canary-': '3c1f7a' }],
      ['sibling values', { a: 'answer-canary-', b: '3c1f7a' }],
      ['zero-width joined', { t: Array.from(CREDENTIAL).join('\u200b') }],
      ['soft hyphens', { t: `x ${Array.from(CREDENTIAL).join('\u00ad')} y` }],
      ['digits split', { n: [804, 17362519] }],
      ['hex split', { h: [hex(CREDENTIAL).slice(0, 10), hex(CREDENTIAL).slice(10)] }],
    ];
    for (const [name, answer] of cases) {
      // the argument check refuses every one of them
      expect(findCredentialIn(answer, matcher), name).toBeDefined();
      const { value, mask } = maskAnswer(answer, matcher, secrets);
      expect(value, name).toBeDefined();
      expect(findCredentialIn(value, matcher), name).toBeUndefined();
      expect(mask, name).toMatch(/^credential-(joined-)?in-answer$/);
    }
    const split = maskAnswer(cases[0]?.[1], matcher, secrets);
    expect(split).toEqual({
      value: {
        content: [
          { type: 'text', text: '***' },
          { type: 'text', text: '***' },
        ],
      },
      mask: 'credential-joined-in-answer',
    });
    // a long character-code array loses only the codes that spell the value
    const long = [...codes('x'.repeat(500)), ...codes(CREDENTIAL), ...codes('y'.repeat(500))];
    const out = maskAnswer({ codes: long }, matcher, secrets).value?.codes ?? [];
    expect(out.slice(0, 500)).toEqual(long.slice(0, 500));
    expect(out.slice(-500)).toEqual(long.slice(-500));
    expect((out as unknown[]).filter((c) => c === '***').length).toBeLessThanOrEqual(
      CREDENTIAL.length,
    );
    expect(maskAnswer({ 'answer-canary-': '3c1f7a', k: 1 }, matcher, secrets).value).toEqual({
      '***': '***',
      k: 1,
    });
  });

  it('withholds an answer holding more split values than it masks part by part', () => {
    const many = Array.from({ length: MAX_JOINED_MASKS + 1 }, (_, i) => ({
      [`k${String(i)}`]: ['answer-canary-', '3c1f7a'],
    }));
    expect(maskAnswer(many, matcher, secrets)).toEqual({
      value: undefined,
      mask: 'answer-withheld',
    });
  });

  it('leaves innocuous answers exactly as they are', () => {
    const answers: unknown[] = [
      { content: [{ type: 'text', text: 'ordinary text\nwith lines' }], isError: false },
      { structuredContent: { n: [1, 2, 3, 80417362518], codes: [104, 101, 108, 108, 111] } },
      {
        nested: [[72, 105], [33]],
        f: [0.5, -1, 1e21],
        big: Array.from({ length: 3000 }, (_, i) => i),
      },
      { 'answer-': 'canary', empty: [], nil: null, t: true },
      { zw: 'a\u200bb', shy: 'co\u00adop' },
    ];
    for (const answer of answers) {
      expect(maskAnswer(answer, matcher, secrets)).toStrictEqual({ value: answer });
    }
  });

  it('keeps no credential in a recorded preview, in any value', () => {
    const cases: unknown[] = [
      { n: Number(DIGITS), k: 'ok' },
      { [CREDENTIAL]: 'v' },
      { uri: `https://x.test/?k=${encodeURIComponent(CREDENTIAL)}` },
      { parts: ['answer-canary-', '3c1f7a'] },
      { a: 'answer-canary-', b: '3c1f7a' },
    ];
    for (const args of cases) {
      const summary = summarizeArguments(args, matcher, secrets);
      const text = JSON.stringify(summary);
      for (const form of [...forms(CREDENTIAL), DIGITS, '3c1f7a']) {
        expect(text, JSON.stringify(args)).not.toContain(form);
      }
    }
    expect(summarizeArguments({ n: 7, t: 'fine' }, matcher, secrets).preview).toBe(
      '{"n":7,"t":"fine"}',
    );
  });
});
