import { describe, expect, it } from 'vitest';

import {
  CODEX_VERSIONS,
  type CodexVersionFacts,
} from '../../../src/config/codex/codex-versions.js';
import {
  approvalRisk,
  codexAsksApproval,
  isAnnotated,
  mayWrite,
  type ToolHints,
} from '../../../src/runtime/probe/approval-risk.js';
import type { ApprovalMode } from '../../../src/config/registry/types.js';

const readOnly: ToolHints = { readOnlyHint: true, destructiveHint: false };
const readOnlyNoDestructive: ToolHints = { readOnlyHint: true };
const contradictory: ToolHints = { readOnlyHint: true, destructiveHint: true };
const destructive: ToolHints = { readOnlyHint: false, destructiveHint: true };
const additiveClosed: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  openWorldHint: false,
};
const additiveOpen: ToolHints = {
  readOnlyHint: false,
  destructiveHint: false,
  openWorldHint: true,
};
const titleOnly = { title: 'x' } as ToolHints;

function row(series: string): CodexVersionFacts {
  const found = CODEX_VERSIONS.find((r) => r.series === series);
  if (found === undefined) throw new Error(`no row ${series}`);
  return found;
}
const V149 = row('0.149');
const V171 = row('0.171');

describe('codexAsksApproval on Codex 0.149 (requires_mcp_tool_approval_for_mode)', () => {
  const cases: [ToolHints | undefined, Record<ApprovalMode, boolean>][] = [
    [undefined, { auto: true, writes: true, prompt: true, approve: false }],
    [titleOnly, { auto: true, writes: true, prompt: true, approve: false }],
    [readOnly, { auto: false, writes: false, prompt: true, approve: false }],
    [readOnlyNoDestructive, { auto: false, writes: false, prompt: true, approve: false }],
    [contradictory, { auto: true, writes: false, prompt: true, approve: false }],
    [destructive, { auto: true, writes: true, prompt: true, approve: false }],
    [additiveClosed, { auto: false, writes: true, prompt: true, approve: false }],
    [additiveOpen, { auto: true, writes: true, prompt: true, approve: false }],
  ];
  for (const [hints, expected] of cases) {
    it(`asks as Codex 0.149 does for ${JSON.stringify(hints)}`, () => {
      for (const mode of ['auto', 'writes', 'prompt', 'approve'] as const) {
        expect([mode, codexAsksApproval(mode, hints, V149)]).toEqual([mode, expected[mode]]);
      }
    });
  }
});

describe('codexAsksApproval on Codex 0.171 (the default)', () => {
  it('differs from 0.149 only in auto for a tool claiming read-only and destructive', () => {
    const all = [undefined, titleOnly, readOnly, readOnlyNoDestructive, destructive];
    for (const hints of [...all, additiveClosed, additiveOpen]) {
      for (const mode of ['auto', 'writes', 'prompt', 'approve'] as const) {
        expect([mode, codexAsksApproval(mode, hints)]).toEqual([
          mode,
          codexAsksApproval(mode, hints, V171),
        ]);
        expect(codexAsksApproval(mode, hints, V171)).toBe(codexAsksApproval(mode, hints, V149));
      }
    }
    expect(codexAsksApproval('auto', contradictory, V149)).toBe(true);
    expect(codexAsksApproval('auto', contradictory, V171)).toBe(false);
    expect(codexAsksApproval('writes', contradictory, V171)).toBe(false);
  });
});

describe('approvalRisk', () => {
  it('never flags prompt, nor a read-only non-destructive tool', () => {
    for (const hints of [undefined, contradictory, destructive, additiveClosed]) {
      expect(approvalRisk('prompt', hints)).toBeUndefined();
    }
    for (const mode of ['auto', 'writes', 'prompt', 'approve'] as const) {
      expect(approvalRisk(mode, readOnly)).toBeUndefined();
      expect(approvalRisk(mode, readOnlyNoDestructive)).toBeUndefined();
    }
  });

  it('flags approve for every tool that may write, and for unannotated tools', () => {
    expect(approvalRisk('approve', undefined)).toMatch(/no annotations/);
    expect(approvalRisk('approve', titleOnly)).toMatch(/no annotations/);
    expect(approvalRisk('approve', destructive)).toMatch(/never asks.*destructiveHint=true/);
    expect(approvalRisk('approve', additiveOpen)).toMatch(/never asks/);
    expect(approvalRisk('approve', contradictory)).toMatch(/never asks/);
  });

  it('flags writes only for a tool claiming read-only and destructive together', () => {
    expect(approvalRisk('writes', contradictory)).toMatch(
      /readOnlyHint=true.*destructiveHint=true/,
    );
    expect(approvalRisk('writes', destructive)).toBeUndefined();
    expect(approvalRisk('writes', undefined)).toBeUndefined();
    expect(approvalRisk('writes', additiveClosed)).toBeUndefined();
  });

  it('flags auto on 0.149 only for a non-read-only tool claiming non-destructive and closed-world', () => {
    expect(approvalRisk('auto', additiveClosed, V149)).toMatch(
      /mode "auto" on Codex 0\.149 skips approval/,
    );
    expect(approvalRisk('auto', additiveOpen, V149)).toBeUndefined();
    expect(approvalRisk('auto', destructive, V149)).toBeUndefined();
    expect(approvalRisk('auto', contradictory, V149)).toBeUndefined();
    expect(approvalRisk('auto', undefined, V149)).toBeUndefined();
  });

  it('flags auto on 0.171 also for a tool claiming read-only and destructive together', () => {
    expect(approvalRisk('auto', additiveClosed, V171)).toMatch(
      /mode "auto" on Codex 0\.171 skips approval.*destructiveHint=false/,
    );
    expect(approvalRisk('auto', contradictory, V171)).toMatch(
      /mode "auto" on Codex 0\.171 skips approval.*readOnlyHint=true.*destructiveHint=true/,
    );
    expect(approvalRisk('auto', contradictory)).toBe(approvalRisk('auto', contradictory, V171));
    expect(approvalRisk('auto', additiveOpen, V171)).toBeUndefined();
    expect(approvalRisk('auto', destructive, V171)).toBeUndefined();
  });

  it('classifies annotations', () => {
    expect(isAnnotated(undefined)).toBe(false);
    expect(isAnnotated(titleOnly)).toBe(false);
    expect(isAnnotated({ openWorldHint: false })).toBe(true);
    expect(mayWrite(undefined)).toBe(true);
    expect(mayWrite(readOnlyNoDestructive)).toBe(false);
    expect(mayWrite(contradictory)).toBe(true);
  });
});
