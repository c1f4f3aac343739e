/**
 * The immutable snapshot: every input a session needs (normalised profile with instruction text,
 * the granted servers' normalised definitions, base Codex settings, tool pins), identified by the
 * sha256 of its canonical JSON. Nothing downstream of a snapshot reads an operator file again.
 */
import type { ProfileData } from '../profile/types.js';
import type { REGISTRY_SCHEMA_VERSION, ServerDefinition } from '../registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';

export const SNAPSHOT_FORMAT = 'codex-mmo-snapshot/1';

/** Digest of one tool's surface as recorded by `tool-mcp pin` (name, description, schema, annotations). */
export interface ToolPin {
  readonly name: string;
  readonly digest: string;
  /** Digest of every field of the tool as listed (pins before lock_version 3 lack it). */
  readonly listed_digest?: string;
}

/**
 * What a pinned server answered at its pin, enough for the gateway to answer a Codex process's
 * `initialize` and `tools/list` itself and start the server only when something else is asked
 * (a lease). Recorded by `tool-mcp pin` beside the tool digests; JSON objects as the server sent
 * them, credential values never among them.
 */
export interface ServerLease {
  readonly protocol_version: string;
  /** The `serverInfo` of the server's `initialize` answer. */
  readonly server_info: Readonly<Record<string, unknown>>;
  /** The `capabilities` of the server's `initialize` answer. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions?: string;
  /** The pinned tools, each exactly as the server listed it, sorted by name. */
  readonly tools: readonly Readonly<Record<string, unknown>>[];
}

export interface Snapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  /** The schema version of the definitions it holds. */
  readonly schema_version: typeof REGISTRY_SCHEMA_VERSION;
  readonly profile: ProfileData;
  /** Normalised definitions of the servers the profile grants, by ID (sorted). */
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  /** Operator base Codex settings from `codex-base.toml` ({} when absent). */
  readonly base: TomlTable;
  /** Pinned tool surfaces of the granted servers that have a pin, by server ID. */
  readonly pins: Readonly<Record<string, readonly ToolPin[]>>;
  /** Leases of the pinned servers whose pin recorded one, by server ID (absent when none). */
  readonly leases?: Readonly<Record<string, ServerLease>>;
}

export interface StoredSnapshot {
  /** `sha256:<hex>` */
  readonly id: string;
  readonly dir: string;
  readonly snapshot: Snapshot;
}
