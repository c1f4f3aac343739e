/**
 * The Codex a command would use: the binary `--codex-bin`, `$CODEX_MMO_CODEX_BIN` or PATH names,
 * its version classified against the version table, and the one `codex-version-untested`
 * warning that `doctor`, `smoke`, `exec` and `run` give for a version outside the table.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Environment } from '../../foundation/paths/directories.js';
import {
  NEWEST_CODEX,
  classifyCodexVersion,
  supportedSeriesText,
  type CodexVersionFacts,
} from '../../config/codex/codex-versions.js';
import { detectCodex, type CodexDetection } from './find-codex.js';

export interface CodexInUse {
  readonly detection: CodexDetection;
  /** The row whose behaviour applies (see `classifyCodexVersion`); the newest when unknown. */
  readonly facts: CodexVersionFacts;
  /** Whether the detected version is a row of the table (false when none was detected). */
  readonly supported: boolean;
}

/**
 * Finds the Codex binary, reads its version and classifies it. With `memoDir` (a data dir), the
 * version a binary file printed before is reused until that file changes.
 */
export async function codexInUse(
  codexBin: string,
  env: Environment,
  cwd?: string,
  memoDir?: string,
): Promise<CodexInUse> {
  const detection = await detectCodex(codexBin, env, cwd, memoDir);
  if (detection.kind !== 'found') return { detection, facts: NEWEST_CODEX, supported: false };
  const classified = classifyCodexVersion(detection.version);
  return { detection, facts: classified.facts, supported: classified.supported };
}

/** `npm install -g @openai/codex@0.171` for the newest supported series. */
export const CODEX_INSTALL_COMMAND = `npm install -g @openai/codex@${NEWEST_CODEX.series}`;

/**
 * `codex-version-untested` (warning) for a found Codex whose version is outside the table, saying
 * which row's behaviour codex-mmo assumes; undefined for a supported version.
 */
export function untestedVersionDiagnostic(
  path: string,
  version: string,
  table?: readonly CodexVersionFacts[],
): Diagnostic | undefined {
  const classified = classifyCodexVersion(version, table);
  if (classified.supported) return undefined;
  return diagnostic({
    severity: 'warning',
    code: 'codex-version-untested',
    message: `Codex ${version} at ${path} is not a supported version (${supportedSeriesText(table)}): codex-mmo renders its configuration and judges its isolation and approvals as for Codex ${classified.facts.series}, which may not hold; run codex-mmo profile smoke to check what roles really receive, or install a supported version (${CODEX_INSTALL_COMMAND})`,
  });
}

/** The version warning for a detection, if any (nothing when Codex was not found or not run). */
export function codexVersionDiagnostics(inUse: CodexInUse): Diagnostic[] {
  const { detection } = inUse;
  if (detection.kind !== 'found') return [];
  const found = untestedVersionDiagnostic(detection.path, detection.version);
  return found === undefined ? [] : [found];
}
