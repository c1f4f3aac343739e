/**
 * A role's instructions in `profile.toml`: inline `instructions` or an `instructions_file` inside
 * the pack. Files are only checked as paths here (relative, inside the pack); `loadPack` reads
 * them.
 */
import { isAbsolute, normalize } from 'node:path/posix';

import type { KeyPath } from '../../foundation/toml/key-positions.js';
import type { PackCheck, Table } from './pack-check.js';

/** A role's reference to an instruction file, still to be read and checked on disk. */
export interface InstructionFileRef {
  readonly role: string;
  /** Normalised pack-relative path. */
  readonly file: string;
  /** Position of the `instructions_file` key. */
  readonly line?: number;
  readonly column?: number;
}

export interface RoleInstructions {
  readonly inline: string | undefined;
  readonly instructionsFile: string | undefined;
}

/** Checks a role's instruction keys; a valid file reference is appended to `instructionFiles`. */
export function validateInstructions(
  check: PackCheck,
  roleName: string,
  table: Table,
  rolePath: KeyPath,
  instructionFiles: InstructionFileRef[],
): RoleInstructions {
  const inline = check.requireString(table, 'instructions', rolePath, '`instructions`');
  const fileRef = check.requireString(table, 'instructions_file', rolePath, '`instructions_file`');
  let instructionsFile: string | undefined;
  if (table.instructions !== undefined && table.instructions_file !== undefined) {
    check.report(
      'instructions-conflict',
      [...rolePath, 'instructions_file'],
      `role \`${roleName}\` sets both \`instructions\` and \`instructions_file\`; keep one`,
    );
  } else if (table.instructions === undefined && table.instructions_file === undefined) {
    check.report(
      'missing-instructions',
      [...rolePath, 'instructions'],
      `role \`${roleName}\` needs instructions: set \`instructions = "..."\` or \`instructions_file = "FILE.md"\` (a file inside the pack)`,
    );
  } else if (inline !== undefined && inline.trim() === '') {
    check.report('invalid-value', [...rolePath, 'instructions'], 'instructions must not be empty');
  } else if (fileRef !== undefined) {
    const normalized = checkInstructionPath(check, fileRef, [...rolePath, 'instructions_file']);
    if (normalized !== undefined) {
      instructionsFile = normalized;
      const at = check.positions.lookup([...rolePath, 'instructions_file']);
      instructionFiles.push({
        role: roleName,
        file: normalized,
        ...(at ? { line: at.line, column: at.column } : {}),
      });
    }
  }
  return { inline, instructionsFile };
}

function checkInstructionPath(check: PackCheck, ref: string, path: KeyPath): string | undefined {
  if (ref.trim() === '') {
    check.report('invalid-value', path, 'instructions_file must not be empty');
    return undefined;
  }
  if (ref.includes('\u0000') || ref.includes('\\')) {
    check.report(
      'instructions-file-outside-pack',
      path,
      `instructions_file ${JSON.stringify(ref)} is not a plain relative path; use '/'-separated names inside the pack directory`,
    );
    return undefined;
  }
  if (isAbsolute(ref) || ref.startsWith('~')) {
    check.report(
      'instructions-file-outside-pack',
      path,
      `instructions_file ${JSON.stringify(ref)} is absolute; a pack is self-contained: put the file in the pack directory and give its relative path`,
    );
    return undefined;
  }
  const normalized = normalize(ref);
  if (normalized === '..' || normalized.startsWith('../') || normalized === '.') {
    check.report(
      'instructions-file-outside-pack',
      path,
      `instructions_file ${JSON.stringify(ref)} leaves the pack directory; a pack is self-contained: put the file in the pack directory and give its relative path`,
    );
    return undefined;
  }
  return normalized;
}
