/**
 * The masks of a container (pure): each hidden directory gets an empty read-only tmpfs over it in
 * the container's own mount namespace, and each kept directory inside one is bound back at its
 * own path, opened before anything is hidden. Rendered as shell lines the container's init runs
 * before the command; any failure ends the container (status 125), so nothing starts unmasked.
 */
import { pathWithin } from '../paths/path-within.js';
import type { Masking } from './containment.js';

/** What a container's processes may not see, and what inside that they still may. */
export interface ContainerMasks {
  /** Existing directories (real paths) shown empty and read-only. */
  readonly hide: readonly string[];
  /** Existing directories (real paths) inside a hidden one, shown as they are. */
  readonly keep: readonly string[];
}

/** Descriptors from which kept directories are bound back: 4 to 9 (the shell's single digits). */
const FIRST_FD = 4;
export const MAX_KEPT = 6;

/** The status with which a container whose masks failed ends. */
export const MASK_FAILED_STATUS = 125;

function quoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** The shell lines that set up `masks` with `masking`'s tools. */
export function maskScript(masks: ContainerMasks, masking: Masking): string {
  // a directory inside another hidden one is hidden with it
  const hide = [...new Set(masks.hide)].filter(
    (dir, _, all) => !all.some((other) => other !== dir && pathWithin(dir, other)),
  );
  const keep = [...new Set(masks.keep)].filter((dir) => hide.some((h) => pathWithin(dir, h)));
  if (keep.length > MAX_KEPT) throw new Error(`at most ${String(MAX_KEPT)} kept directories`);
  const fail = ` || exit ${String(MASK_FAILED_STATUS)}`;
  const mount = quoted(masking.mount);
  const lines: string[] = [];
  keep.forEach((dir, i) => lines.push(`exec ${String(FIRST_FD + i)}<${quoted(dir)}${fail}`));
  for (const dir of hide) {
    lines.push(
      `${mount} -t tmpfs -o mode=0755,size=64k,nosuid,nodev,noexec codex-mmo-mask ${quoted(dir)}${fail}`,
    );
  }
  keep.forEach((dir, i) => {
    lines.push(`${quoted(masking.mkdir)} -p ${quoted(dir)}${fail}`);
    lines.push(
      `${mount} --no-canonicalize --bind /proc/self/fd/${String(FIRST_FD + i)} ${quoted(dir)}${fail}`,
    );
  });
  for (const dir of hide) lines.push(`${mount} -o remount,bind,ro ${quoted(dir)}${fail}`);
  keep.forEach((_, i) => lines.push(`exec ${String(FIRST_FD + i)}<&-`));
  return `${lines.join('\n')}\n`;
}
