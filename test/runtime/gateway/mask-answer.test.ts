/**
 * What Codex gets from a server and what the calls log keeps: credential values masked in every
 * string, key and number of any answer (resource texts and blobs, prompt messages, completion
 * values), a base64 blob masked inside its bytes; previews of recorded params masked in strings,
 * numbers and keys, and masked whole when a value is split over several of them.
 */
import { describe, expect, it } from 'vitest';

import { summarizeArguments } from '../../../src/runtime/gateway/call-record.js';
import { credentialMatcher } from '../../../src/foundation/diagnostics/credential-scan.js';
import { maskAnswer } from '../../../src/runtime/gateway/mask-answer.js';

const CREDENTIAL = 'answer-canary-3c1f7a';
const DIGITS = '80417362519';
const secrets = [CREDENTIAL, DIGITS];
const matcher = credentialMatcher(secrets);
const forms = (v: string): string[] => [
  v,
  Buffer.from(v).toString('hex'),
  Buffer.from(v).toString('base64').slice(4, 16),
];

describe('answers and records', () => {
  it('masks resource texts, blobs at any alignment, prompt messages, numbers and keys', () => {
    for (const prefix of ['', 'a', 'ab', 'blob ']) {
      const blob = Buffer.from(`${prefix}${CREDENTIAL} end`).toString('base64');
      const answer = maskAnswer(
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
      expect(answer.other).toBe(80417362518);
      const masked = Buffer.from(answer.contents[1]?.blob ?? '', 'base64').toString();
      expect(masked).toBe(`${prefix}*** end`);
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
