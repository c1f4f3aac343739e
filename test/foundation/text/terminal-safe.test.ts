import { describe, expect, it } from 'vitest';

import { terminalSafe } from '../../../src/foundation/text/terminal-safe.js';

/** Any character a terminal acts on or that reorders or hides text; none may remain. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

function codePoints(from: number, to: number): string {
  let out = '';
  for (let c = from; c <= to; c++) out += String.fromCodePoint(c);
  return out;
}

describe('terminalSafe', () => {
  it('writes line breaks and tabs as \\n, \\r and \\t', () => {
    expect(terminalSafe('a\nb\rc\td\r\ne')).toBe('a\\nb\\rc\\td\\r\\ne');
  });

  it('writes every C0 control, DEL and every C1 control as \\xHH', () => {
    expect(terminalSafe('\u0000\u0007\u001b\u007f')).toBe('\\x00\\x07\\x1b\\x7f');
    expect(terminalSafe('\u0080\u0085\u009b\u009f')).toBe('\\x80\\x85\\x9b\\x9f');
    const all = codePoints(0, 0x1f) + '\u007f' + codePoints(0x80, 0x9f);
    const out = terminalSafe(all);
    expect(out).not.toMatch(RAW);
    expect(out.split('\\').length - 1).toBe(all.length);
  });

  it('writes bidi marks, embeddings, overrides and isolates as \\uHHHH', () => {
    expect(terminalSafe('\u061c\u200e\u200f')).toBe('\\u061c\\u200e\\u200f');
    expect(terminalSafe('\u202a\u202b\u202c\u202d\u202e')).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u202e',
    );
    expect(terminalSafe('\u2066\u2067\u2068\u2069')).toBe('\\u2066\\u2067\\u2068\\u2069');
    expect(terminalSafe('evil\u202etxt.exe')).toBe('evil\\u202etxt.exe');
  });

  it('writes zero-width characters, separators and the BOM as \\uHHHH', () => {
    expect(terminalSafe('\u200b\u200c\u200d')).toBe('\\u200b\\u200c\\u200d');
    expect(terminalSafe('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
    expect(terminalSafe('\ufeffhello')).toBe('\\ufeffhello');
    expect(terminalSafe('a\u2060b\u00adc')).toBe('a\\u2060b\\u00adc');
  });

  it('writes invisible tag characters and lone surrogates as escapes', () => {
    expect(terminalSafe('x\u{e0041}\u{e0042}y')).toBe('x\\u{e0041}\\u{e0042}y');
    expect(terminalSafe('a\ud800b\udc00c')).toBe('a\\ud800b\\udc00c');
  });

  it('leaves printable text alone: ASCII, accents, CJK, emoji, backslashes', () => {
    const text = 'café 中文 ½ € 🎉 👍🏽 ✔️ path\\to "quoted" \'x\' ~`!@#$%^&*()';
    expect(terminalSafe(text)).toBe(text);
  });

  it('turns OSC and CSI sequences into inert text on one line', () => {
    const clipboard = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
    const title = '\u001b]0;title\u0007';
    const csi = '\u001b[2J\u001b[1;1H\u009b31m';
    const out = terminalSafe(`${clipboard}${title}${csi}`);
    expect(out).toBe(
      '\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07\\x1b]0;title\\x07\\x1b[2J\\x1b[1;1H\\x9b31m',
    );
    expect(out).not.toMatch(RAW);
  });

  it('cannot forge a second line', () => {
    const forged = 'done\n12:00:02 root (lead) approval a9 approved by root (cli)';
    const out = terminalSafe(forged);
    expect(out.split('\n')).toHaveLength(1);
    expect(out).toBe('done\\n12:00:02 root (lead) approval a9 approved by root (cli)');
  });

  it('leaves no raw control, format or separator character in any text', () => {
    const every = codePoints(0, 0x2fff) + '\ufeff\ufff9\ufffa\ufffb' + codePoints(0xe0000, 0xe007f);
    const out = terminalSafe(every);
    expect(out).not.toMatch(RAW);
    expect(out).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u);
    expect(out).toContain('é');
  });

  describe('with keepLayout', () => {
    it('keeps \\n, \\r\\n and tabs as they are and escapes everything else', () => {
      expect(
        terminalSafe('one\r\ntwo\n\tthree\rfour\u001b]0;t\u0007\u202e', { keepLayout: true }),
      ).toBe('one\ntwo\n\tthree\\rfour\\x1b]0;t\\x07\\u202e');
    });

    it('leaves no raw control character besides line feeds and tabs', () => {
      const every = codePoints(0, 0x2fff);
      const out = terminalSafe(every, { keepLayout: true });
      expect(out.replace(/[\n\t]/g, '')).not.toMatch(RAW);
      expect(out.split('\n')).toHaveLength(2);
    });
  });
});
