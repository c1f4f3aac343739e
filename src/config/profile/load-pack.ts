/**
 * Reads a profile pack from disk: `profile.toml`, validated by `validatePackToml`, plus the
 * instruction files it references, which must be regular files inside the pack directory (a
 * symlink, profile.toml's included, that resolves outside the pack is rejected).
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import { pseudoFilesystemOf } from '../../foundation/paths/special-filesystem.js';
import type { KeyPositions } from '../../foundation/toml/key-positions.js';
import { decodeUtf8 } from '../../foundation/toml/parse-toml.js';
import { PACK_FILE } from './pack-fields.js';
import type { ProfileData, ProfilePack, RoleSpec } from './types.js';
import { validatePackToml, type InstructionFileRef } from './validate-pack.js';

/** Largest profile.toml or instruction file accepted. */
export const MAX_PACK_FILE_BYTES = 1024 * 1024;

export interface LoadedPack {
  readonly pack: ProfilePack | undefined;
  /**
   * When `pack` is undefined but profile.toml parsed: its roles with the grants that are valid
   * on their own (see `PackValidation.partial`), for checking those grants against the registry.
   */
  readonly partial?: ProfileData;
  /** Where `partial` came from: profile.toml and its key positions. */
  readonly file?: string;
  readonly positions?: KeyPositions;
  readonly diagnostics: Diagnostic[];
  /** Pack-relative files the pack consists of: `profile.toml` and its instruction files, sorted. */
  readonly files: readonly string[];
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Whether the resolved path `real` lies below the resolved directory `realDir`. */
function isInside(realDir: string, real: string): boolean {
  const rel = relative(realDir, real);
  return !(rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** Loads and validates the pack in `dir`; never throws for bad input. */
export async function loadPack(dir: string): Promise<LoadedPack> {
  const packDir = resolve(dir);
  const file = join(packDir, PACK_FILE);
  const fail = (code: string, message: string, at: string = packDir): LoadedPack => ({
    pack: undefined,
    diagnostics: [diagnostic({ code, message, file: at })],
    files: [],
  });

  const pseudo = pseudoFilesystemOf(packDir);
  if (pseudo !== undefined) {
    return fail(
      'special-filesystem',
      `${packDir} is on ${pseudo}, a kernel pseudo-filesystem, not a pack; a pack is an ordinary directory holding ${PACK_FILE}`,
    );
  }

  try {
    const info = await stat(packDir);
    if (!info.isDirectory()) {
      return fail(
        'pack-not-found',
        `${packDir} is not a directory; a pack is a directory holding ${PACK_FILE}`,
      );
    }
  } catch (error) {
    if (isMissing(error)) {
      return fail(
        'pack-not-found',
        `pack directory ${packDir} does not exist; give the path of a directory holding ${PACK_FILE}`,
      );
    }
    return fail('pack-unreadable', `cannot read pack directory: ${describeError(error)}`);
  }

  let realDir: string;
  let bytes: Uint8Array;
  try {
    realDir = await realpath(packDir);
    if (!isInside(realDir, await realpath(file))) {
      return fail(
        'pack-file-outside-pack',
        `${PACK_FILE} is a symbolic link that leads outside the pack directory; a pack is self-contained: copy the file into the pack`,
        file,
      );
    }
    const info = await stat(file);
    if (!info.isFile()) {
      return fail('pack-not-found', `${PACK_FILE} is not a regular file`, file);
    }
    if (info.size > MAX_PACK_FILE_BYTES) {
      return fail(
        'file-too-large',
        `${PACK_FILE} is ${info.size} bytes; the limit is ${MAX_PACK_FILE_BYTES} bytes`,
        file,
      );
    }
    bytes = await readFile(file);
  } catch (error) {
    if (isMissing(error)) {
      return fail(
        'pack-not-found',
        `${packDir} holds no ${PACK_FILE}; a pack is a directory with ${PACK_FILE} and the instruction files it references`,
      );
    }
    return fail('pack-unreadable', `cannot read ${PACK_FILE}: ${describeError(error)}`, file);
  }

  const validation = validatePackToml({ file, bytes });
  const diagnostics: Diagnostic[] = [...validation.diagnostics];
  const texts = new Map<string, string>();
  const seen = new Set<string>();
  for (const ref of validation.instructionFiles) {
    if (seen.has(ref.file)) continue;
    seen.add(ref.file);
    diagnostics.push(...(await readInstructions(realDir, packDir, file, ref, texts)));
  }

  const files = [PACK_FILE, ...[...texts.keys()]].sort();
  if (validation.profile === undefined || hasErrors(diagnostics)) {
    const partial = validation.profile ?? validation.partial;
    return {
      pack: undefined,
      diagnostics,
      files,
      ...(partial ? { partial, file } : {}),
      ...(partial && validation.positions ? { positions: validation.positions } : {}),
    };
  }
  const agents: Record<string, RoleSpec> = {};
  for (const [name, role] of Object.entries(validation.profile.agents)) {
    const text =
      role.instructions_file !== undefined ? texts.get(role.instructions_file) : undefined;
    agents[name] = text !== undefined ? { ...role, instructions: text } : role;
  }
  const pack: ProfilePack = {
    ...validation.profile,
    agents,
    dir: packDir,
    file,
    ...(validation.positions ? { positions: validation.positions } : {}),
  };
  return { pack, diagnostics, files };
}

/** Reads one instruction file into `texts`, returning its problems. */
async function readInstructions(
  realDir: string,
  packDir: string,
  packFile: string,
  ref: InstructionFileRef,
  texts: Map<string, string>,
): Promise<Diagnostic[]> {
  const problem = (code: string, message: string): Diagnostic[] => [
    diagnostic({
      code,
      message,
      file: packFile,
      line: ref.line,
      column: ref.column,
      path: `agents.${ref.role}.instructions_file`,
    }),
  ];
  const target = join(packDir, ref.file);
  let real: string;
  try {
    real = await realpath(target);
  } catch (error) {
    if (isMissing(error)) {
      return problem(
        'instructions-file-not-found',
        `instructions file ${JSON.stringify(ref.file)} does not exist in the pack directory ${packDir}; create it or fix the path`,
      );
    }
    return problem(
      'instructions-file-unreadable',
      `cannot read instructions file ${JSON.stringify(ref.file)}: ${describeError(error)}`,
    );
  }
  if (!isInside(realDir, real)) {
    return problem(
      'instructions-file-outside-pack',
      `instructions file ${JSON.stringify(ref.file)} is a symbolic link that leads outside the pack directory; a pack is self-contained: copy the file into the pack`,
    );
  }
  try {
    const info = await stat(real);
    if (!info.isFile()) {
      return problem(
        'instructions-file-not-found',
        `instructions file ${JSON.stringify(ref.file)} is not a regular file`,
      );
    }
    if (info.size > MAX_PACK_FILE_BYTES) {
      return problem(
        'file-too-large',
        `instructions file ${JSON.stringify(ref.file)} is ${info.size} bytes; the limit is ${MAX_PACK_FILE_BYTES} bytes`,
      );
    }
    const bytes = await readFile(real);
    const decoded = decodeUtf8(bytes, join(packDir, ref.file));
    if (!decoded.ok) {
      // positioned in the instruction file itself; the message names the role that uses it
      return decoded.diagnostics.map((d) => ({
        ...d,
        message: `instructions file ${JSON.stringify(ref.file)} of role \`${ref.role}\` is not valid UTF-8 text; save it as UTF-8`,
      }));
    }
    if (decoded.text.includes('\u0000')) {
      return problem(
        'instructions-file-binary',
        `instructions file ${JSON.stringify(ref.file)} contains NUL bytes, so it is not a text file; instructions are text written for the model: point instructions_file at a text file (Markdown or plain text)`,
      );
    }
    const text = decoded.text.startsWith('\uFEFF') ? decoded.text.slice(1) : decoded.text;
    if (text.trim() === '') {
      return problem(
        'invalid-value',
        `instructions file ${JSON.stringify(ref.file)} is empty; write the role's instructions in it`,
      );
    }
    texts.set(ref.file, text);
    return [];
  } catch (error) {
    return problem(
      'instructions-file-unreadable',
      `cannot read instructions file ${JSON.stringify(ref.file)}: ${describeError(error)}`,
    );
  }
}
