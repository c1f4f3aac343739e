/**
 * Finds the fragment files of `<configDir>/tool-mcp.d/` and reads each one safely (regular files
 * only, bounded size), without validating them. Every file-system problem becomes a diagnostic.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { configFiles } from '../../foundation/paths/directories.js';
import { registryDiagnostic } from './diagnostic-codes.js';
import { formatBytes, readConfigFileSync } from './read-config-file.js';
import type { FragmentSource } from './types.js';

/** Fragments larger than this are refused (a registry fragment is a few kilobytes). */
export const MAX_FRAGMENT_BYTES = 1024 * 1024;

export interface FragmentFiles {
  /** Absolute path of `tool-mcp.d`. */
  readonly registryDir: string;
  /** Readable fragments, in byte-wise lexical filename order. */
  readonly sources: FragmentSource[];
  /** Problems finding or reading fragments. */
  readonly diagnostics: Diagnostic[];
}

/** Whether a directory entry name is a fragment: `*.toml`, not hidden. */
export function isFragmentName(name: string): boolean {
  return name.endsWith('.toml') && !name.startsWith('.');
}

/** Byte-wise comparison of file names (UTF-8 code units, not locale order). */
export function compareBytewise(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Lists and reads the fragment files of a config dir without validating their content. */
export function readFragmentFiles(configDir: string): Promise<FragmentFiles> {
  return Promise.resolve(readFragmentFilesSync(configDir));
}

/** Synchronous form of `readFragmentFiles` (configuration files are few and small). */
export function readFragmentFilesSync(configDir: string): FragmentFiles {
  const registryDir = configFiles(resolve(configDir)).registryDir;
  const diagnostics: Diagnostic[] = [];
  let names: string[];
  try {
    names = readdirSync(registryDir);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT' && !existsSync(resolve(configDir))) {
      diagnostics.push(
        registryDiagnostic('config-dir-missing', {
          message: `the config directory ${resolve(configDir)} does not exist, so the registry is empty; check --config-dir / CODEX_MMO_CONFIG_DIR, or create it with a tool-mcp.d/ of *.toml fragments`,
          file: resolve(configDir),
        }),
      );
    } else if (code === 'ENOENT') {
      diagnostics.push(
        registryDiagnostic('registry-dir-missing', {
          message: `no registry directory at ${registryDir}; the registry is empty. Create it and add *.toml fragments`,
          file: registryDir,
        }),
      );
    } else {
      const why =
        code === 'ENOTDIR'
          ? 'it is not a directory'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : typeof code === 'string'
              ? code
              : 'it could not be read';
      diagnostics.push(
        registryDiagnostic('registry-dir-unreadable', {
          message: `cannot list the registry directory (${why}); make ${registryDir} a directory you can read`,
          file: registryDir,
        }),
      );
    }
    return { registryDir, sources: [], diagnostics };
  }

  const fragmentNames = names.filter(isFragmentName).sort(compareBytewise);
  const results = fragmentNames.map((name) => {
    const file = join(registryDir, name);
    return { file, result: readConfigFileSync(file, MAX_FRAGMENT_BYTES) };
  });
  const sources: FragmentSource[] = [];
  for (const { file, result } of results) {
    switch (result.kind) {
      case 'ok':
        sources.push({ file, bytes: result.bytes });
        break;
      case 'missing':
        diagnostics.push(
          registryDiagnostic('fragment-unreadable', {
            message:
              'cannot read this fragment (it vanished or is a dangling symbolic link); fix the link or remove it',
            file,
          }),
        );
        break;
      case 'unreadable':
        diagnostics.push(
          registryDiagnostic('fragment-unreadable', {
            message: `cannot read this fragment (${result.reason}); make it readable or move it out of tool-mcp.d`,
            file,
          }),
        );
        break;
      case 'not-a-file':
        diagnostics.push(
          registryDiagnostic('fragment-not-a-file', {
            message: `this is ${result.what}, not a fragment file; rename it so it does not end in .toml or move it out of tool-mcp.d`,
            file,
          }),
        );
        break;
      case 'too-large':
        diagnostics.push(
          registryDiagnostic('fragment-too-large', {
            message: `fragment is ${formatBytes(result.size)}, over the ${formatBytes(result.limit)} limit; split it into several fragments (a registry fragment is normally a few KiB) or remove what does not belong in it`,
            file,
          }),
        );
        break;
    }
  }
  return { registryDir, sources, diagnostics };
}
