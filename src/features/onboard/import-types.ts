/**
 * The data of `tool-mcp import`: the formats it reads, and the candidate entry each parser makes
 * of one server of a file — what its registry fragment would define, the literal secrets it had
 * (values held in memory only, to be moved to credentials.env) and every problem found.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { ApprovalMode } from '../../config/registry/types.js';
import type { FragmentTarget } from './fragment-text.js';

export const IMPORT_FORMATS = ['codex', 'claude', 'server-json'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A literal secret of the source, named by the variable that will hold it. Never printed. */
export interface MovedSecret {
  /** The environment variable the registry names instead of the value. */
  readonly name: string;
  /** Key path of the literal in the source (safe to print). */
  readonly from: string;
  readonly value: string;
}

/** Where a server is written in the source file. */
export interface SourceLocation {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** Key path of the server's entry (`mcp_servers.github`, `mcpServers.github`, `packages[0]`). */
  readonly path: string;
}

/** One server of an imported file, as a registry entry would define it. */
export interface ImportCandidate {
  /** The server's name in the source. */
  readonly name: string;
  /** The registry ID proposed for it (the name itself, or derived from a server.json name). */
  readonly id: string;
  readonly source: SourceLocation;
  /** The transport fields; absent when the server cannot be imported (see diagnostics). */
  readonly target?: FragmentTarget;
  /** The source's own tool list (Codex `enabled_tools`), when it has one. */
  readonly tools?: readonly string[];
  /** Tools the source switches off (Codex `disabled_tools`). */
  readonly excludeTools?: readonly string[];
  readonly approvalMode?: ApprovalMode;
  readonly startupTimeoutSec?: number;
  readonly toolTimeoutSec?: number;
  /** Literal secrets replaced by variable names. */
  readonly secrets: readonly MovedSecret[];
  /** Variables the entry reads that the source expected from the environment. */
  readonly referenced: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** What a parser makes of one file. */
export interface ParsedImportFile {
  readonly format: ImportFormat;
  readonly file: string;
  readonly candidates: readonly ImportCandidate[];
  /** Problems of the file as a whole (syntax, unknown schema, no servers). */
  readonly diagnostics: readonly Diagnostic[];
}
