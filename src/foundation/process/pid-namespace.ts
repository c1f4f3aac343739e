/**
 * Process ids across containers: inside a session's container a process knows only its id in the
 * container's PID namespace (its /proc is the container's). It names that namespace too
 * (`pidNamespace()`, e.g. `pid:[4026532301]`, the same string seen from any namespace), and a
 * peer outside — the gateway checking a relay's lineage — finds the process's id in its own view.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The PID namespace of this process, as `/proc/self/ns/pid` names it (undefined off Linux). */
export function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** The last `NSpid` entry of `/proc/<pid>/status`: the id in the process's own namespace. */
function innermostPid(pid: string): number | undefined {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    const last = line?.trim().split(/\s+/).at(-1);
    return last === undefined ? undefined : Number(last);
  } catch {
    return undefined;
  }
}

/**
 * This process's id for the process that is `pid` in PID namespace `namespace`: `pid` itself when
 * the namespace is ours (or not given); else the one visible process of that namespace with that
 * id; undefined when there is none.
 */
export function pidInOwnView(pid: number, namespace: string | undefined): number | undefined {
  if (namespace === undefined || namespace === pidNamespace()) return pid;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let ns: string;
    try {
      ns = readlinkSync(`/proc/${name}/ns/pid`);
    } catch {
      continue;
    }
    if (ns === namespace && innermostPid(name) === pid) return Number(name);
  }
  return undefined;
}
