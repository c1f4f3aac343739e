/**
 * Recognises kernel pseudo-filesystems (procfs, sysfs and their kin), where codex-mmo neither
 * stores nor reads files: their entries look like regular files of size 0 and some directory
 * operations never finish there. A path that does not exist yet is judged by its nearest
 * existing ancestor.
 */
import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** `statfs` type numbers of the pseudo-filesystems refused, with their names. */
const PSEUDO_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroupfs'],
  [0x63677270, 'cgroup2fs'],
  [0xcafe4a11, 'bpffs'],
  [0x6165676c, 'pstorefs'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x1cd1, 'devpts'],
]);

/** The name of the pseudo-filesystem `path` (or its nearest existing ancestor) is on, if any. */
export function pseudoFilesystemOf(path: string): string | undefined {
  let current = resolve(path);
  for (;;) {
    try {
      return PSEUDO_FILESYSTEMS.get(statfsSync(current).type);
    } catch {
      const parent = dirname(current);
      if (parent === current) return undefined;
      current = parent;
    }
  }
}
