/**
 * What the scripted model does during `profile smoke`. Every Codex process gets the task
 * `codex-mmo smoke: process ROOT`; its root agent then spawns each of its native roles
 * (`spawn_agent`, waiting for the child's first request, then `close_agent`) — a native role
 * with native roles of its own spawns those in turn, as only a role's own `native_agents` may be
 * started — spawns through
 * `mmo_mesh` each participant role assigned to it (waiting for that participant's first request),
 * and finishes. The first request of every (process, role) is kept: it shows the tools that role's
 * model is really offered.
 */
import type { ModelRequest, ScriptedItem } from '../../runtime/codex/scripted-model.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';
import type { ResolvedProcess } from '../../config/profile/types.js';

/** Text of the spawn message for a native role; the sub-agent's request carries it. */
export const SMOKE_SPAWN_MARKER = 'codex-mmo smoke: you are role';
/** Start of the task every process root is given. */
export const SMOKE_PROCESS_MARKER = 'codex-mmo smoke: process';

/** The task of the process rooted at `root`. */
export function processTask(root: string): string {
  return `${SMOKE_PROCESS_MARKER} ${root}`;
}

/** The `spawn_agent` message for native role `role` of process `process`. */
export function nativeMessage(role: string, process: string): string {
  return `${SMOKE_SPAWN_MARKER} ${role} in process ${process}`;
}

/** Which (process, role) a request comes from, by the task or spawn message it carries. */
export function requestOrigin(
  request: ModelRequest,
): { readonly process: string; readonly role: string } | undefined {
  const natives = /codex-mmo smoke: you are role (\S+) in process (\S+)/;
  const roots = /codex-mmo smoke: process (\S+)/;
  for (const text of request.userTexts) {
    const native = natives.exec(text);
    if (native?.[1] !== undefined && native[2] !== undefined) {
      return { process: native[2], role: native[1] };
    }
  }
  for (const text of request.userTexts) {
    const root = roots.exec(text);
    if (root?.[1] !== undefined) return { process: root[1], role: root[1] };
  }
  return undefined;
}

/** How long a spawner waits for the first request of what it spawned. */
export const CHILD_WAIT_MS = 30_000;

export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** The `agent_id` in a `spawn_agent` result, if the spawn succeeded. */
function agentIdOf(output: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(output);
    if (typeof parsed === 'object' && parsed !== null && 'agent_id' in parsed) {
      const id = parsed.agent_id;
      if (typeof id === 'string') return id;
    }
  } catch {
    // not JSON: Codex reported a failure in prose
  }
  return undefined;
}

/** A spawn that did not happen: what Codex or `mmo_mesh` answered. */
export interface SpawnFailure {
  readonly process: string;
  readonly role: string;
  readonly via: 'spawn_agent' | 'mmo_mesh';
  readonly output: string;
}

type Step = { readonly kind: 'native' | 'participant'; readonly role: string };

/**
 * The scripted model's side of a smoke run. `participants` assigns each participant role to the
 * process root that spawns it through `mmo_mesh` (processes started directly have none).
 */
export class SmokeScript {
  /** The first request of each `process/role`. */
  readonly first = new Map<string, ModelRequest>();
  readonly failures: SpawnFailure[] = [];
  /** Processes whose root agent has finished its script. */
  readonly done = new Set<string>();
  private readonly scripts = new Map<string, (r: ModelRequest) => Promise<ScriptedItem[]>>();
  /** Native roles that spawned every native role below them (`process/role`). */
  private readonly subtreesDone = new Set<string>();

  constructor(
    private readonly processes: readonly ResolvedProcess[],
    private readonly participants: ReadonlyMap<string, readonly string[]>,
    /** Each role's `native_agents` (without it, the process root spawns every native role). */
    private readonly nativeAgents?: (role: string) => readonly string[],
  ) {}

  /**
   * The native roles `role` spawns in the process rooted at `root`: breadth first from the
   * root, each native role by the first role whose `native_agents` lists it.
   */
  private nativeChildren(root: string, role: string): string[] {
    const process = this.processes.find((p) => p.root === root);
    const roles = process?.roles ?? [];
    const natives = this.nativeAgents;
    if (natives === undefined) return role === root ? roles.filter((r) => r !== root) : [];
    const parentOf = new Map<string, string>();
    const queue = [root];
    const reached = new Set(queue);
    for (let i = 0; i < queue.length; i++) {
      const current = queue[i] ?? '';
      for (const child of natives(current)) {
        if (reached.has(child) || !roles.includes(child)) continue;
        reached.add(child);
        parentOf.set(child, current);
        queue.push(child);
      }
    }
    return roles.filter((r) => r !== root && parentOf.get(r) === role);
  }

  /** The role that spawns native role `role` of the process rooted at `root`. */
  nativeParent(root: string, role: string): string | undefined {
    const process = this.processes.find((p) => p.root === root);
    return [root, ...(process?.roles ?? [])].find((r) =>
      this.nativeChildren(root, r).includes(role),
    );
  }

  /** Whether a spawned native role and every native role below it have been seen. */
  private subtreeSeen(root: string, role: string): boolean {
    if (!this.seen(root, role)) return false;
    return (
      this.nativeChildren(root, role).length === 0 ||
      this.subtreesDone.has(SmokeScript.key(root, role))
    );
  }

  static key(process: string, role: string): string {
    return `${process}/${role}`;
  }

  seen(process: string, role: string): boolean {
    return this.first.has(SmokeScript.key(process, role));
  }

  /** The scripted model's handler. */
  readonly handle = async (request: ModelRequest): Promise<ScriptedItem[]> => {
    const origin = requestOrigin(request);
    if (origin === undefined) return [{ type: 'message', text: 'codex-mmo smoke' }];
    const key = SmokeScript.key(origin.process, origin.role);
    if (!this.first.has(key)) this.first.set(key, request);
    if (
      origin.role !== origin.process &&
      this.nativeChildren(origin.process, origin.role).length === 0
    ) {
      return [{ type: 'message', text: 'codex-mmo smoke: role checked' }];
    }
    return this.scriptOf(origin.process, origin.role)(request);
  };

  private scriptOf(
    root: string,
    self: string = root,
  ): (request: ModelRequest) => Promise<ScriptedItem[]> {
    const own = SmokeScript.key(root, self);
    const existing = this.scripts.get(own);
    if (existing !== undefined) return existing;
    const steps: Step[] = [
      ...this.nativeChildren(root, self).map((role) => ({ kind: 'native' as const, role })),
      ...(self === root ? (this.participants.get(root) ?? []) : []).map((role) => ({
        kind: 'participant' as const,
        role,
      })),
    ];
    let position = 0;
    let awaiting = false;
    // a root agent's requests arrive one at a time, so the script keeps its place in a closure
    const script = async (request: ModelRequest): Promise<ScriptedItem[]> => {
      if (awaiting) {
        awaiting = false;
        const step = steps[position];
        position += 1;
        const output = request.toolOutputs.at(-1)?.output ?? '';
        if (step?.kind === 'native') {
          const id = agentIdOf(output);
          if (id !== undefined) {
            await waitUntil(() => this.subtreeSeen(root, step.role), CHILD_WAIT_MS);
            return [
              {
                type: 'function_call',
                namespace: 'multi_agent_v1',
                name: 'close_agent',
                arguments: { target: id },
              },
            ];
          }
          this.failures.push({ process: root, role: step.role, via: 'spawn_agent', output });
        } else if (step !== undefined) {
          if (output.includes('Started participant')) {
            await waitUntil(() => this.seen(step.role, step.role), CHILD_WAIT_MS);
          } else {
            this.failures.push({ process: root, role: step.role, via: 'mmo_mesh', output });
          }
        }
      }
      const next = steps[position];
      if (next === undefined) {
        if (self === root) this.done.add(root);
        else this.subtreesDone.add(own);
        return [{ type: 'message', text: 'codex-mmo smoke complete' }];
      }
      awaiting = true;
      return next.kind === 'native'
        ? [
            {
              type: 'function_call',
              namespace: 'multi_agent_v1',
              name: 'spawn_agent',
              arguments: { agent_type: next.role, message: nativeMessage(next.role, root) },
            },
          ]
        : [
            {
              type: 'function_call',
              namespace: `mcp__${MESH_SERVER_NAME}`,
              name: 'spawn_participant',
              arguments: { role: next.role, task: processTask(next.role) },
            },
          ];
    };
    this.scripts.set(own, script);
    return script;
  }
}
