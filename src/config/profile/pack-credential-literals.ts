/**
 * The credential-literal check of a profile's inputs: the pack's texts (descriptions,
 * instructions, model names), `codex-base.toml` and the registry entries it grants are searched
 * for known credential values before they can reach a snapshot. Findings name keys, never values.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { KeyPath, KeyPositions } from '../../foundation/toml/key-positions.js';
import {
  credentialLiteralDiagnostics,
  type KnownCredential,
} from '../registry/credential-literals.js';
import { fragmentCredentialLiterals } from '../registry/fragment-credential-literals.js';
import type { RegistryEntry } from '../registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import type { ProfileData } from './types.js';

export interface LiteralInputs {
  readonly profile: ProfileData;
  /** profile.toml and its key positions, when known. */
  readonly packFile?: string;
  readonly packPositions?: KeyPositions;
  readonly base: TomlTable;
  readonly baseFile: string;
  /** The registry entries the profile grants. */
  readonly entries: readonly RegistryEntry[];
}

/** The pack's own literals as plain data, keyed the way profile.toml writes them. */
function packTexts(profile: ProfileData): Record<string, unknown> {
  const agents: Record<string, unknown> = {};
  for (const [name, role] of Object.entries(profile.agents)) {
    agents[name] = {
      description: role.description,
      instructions: role.instructions,
      ...(role.model !== undefined ? { model: role.model } : {}),
    };
  }
  return {
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    agents,
  };
}

/** `known-credential-literal` errors for the pack, codex-base.toml and the granted entries. */
export function profileCredentialLiterals(
  inputs: LiteralInputs,
  credentials: readonly KnownCredential[],
): Diagnostic[] {
  if (credentials.length === 0) return [];
  const { profile } = inputs;
  const keyOf = (path: KeyPath): KeyPath => {
    const [agents, name, key] = path;
    if (agents !== 'agents' || typeof name !== 'string' || key !== 'instructions') return path;
    const file = profile.agents[name]?.instructions_file;
    return file !== undefined ? ['agents', name, 'instructions_file'] : path;
  };
  return [
    ...credentialLiteralDiagnostics(packTexts(profile), credentials, {
      ...(inputs.packFile !== undefined ? { file: inputs.packFile } : {}),
      ...(inputs.packPositions !== undefined ? { positions: inputs.packPositions } : {}),
      base: [],
      keyOf,
      fix: 'Remove it from the pack (and its instruction files): a pack may name a variable, never hold its value',
    }),
    ...credentialLiteralDiagnostics(inputs.base, credentials, {
      file: inputs.baseFile,
      base: [],
      fix: 'Remove it from codex-base.toml; keep the value in credentials.env and let the setting name the variable (e.g. env_key)',
    }),
    ...fragmentCredentialLiterals(inputs.entries, credentials),
  ];
}
