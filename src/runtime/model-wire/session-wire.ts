/**
 * Starts the model wire of one session from its snapshot and plan: the provider comes from the
 * snapshot's base settings, and the wire's records go to `<session>/logs/model-wire.jsonl`; a flood
 * of unauthenticated connections is reported to `onFlood`; `codex` is the version the processes
 * run (how it names server namespaces).
 */
import { join } from 'node:path';

import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import type { ListenerFlood } from '../../foundation/process/connection-limits.js';
import { ModelWire, type UnofferedCallOf } from './model-wire.js';

/** The file, in a session's log directory, that holds the wire's records. */
export const MODEL_WIRE_LOG = 'model-wire.jsonl';

export function startSessionWire(
  snapshot: Snapshot,
  plan: ResolvedPlan,
  logsDir: string | undefined,
  onUnofferedCall?: (call: UnofferedCallOf) => void,
  onFlood?: (flood: ListenerFlood) => void,
  codex?: CodexVersionFacts,
): Promise<ModelWire> {
  return ModelWire.start({
    profile: snapshot.profile,
    plan,
    base: snapshot.base,
    ...(codex !== undefined ? { codex } : {}),
    ...(onFlood !== undefined ? { limits: { onFlood } } : {}),
    ...(onUnofferedCall !== undefined ? { onUnofferedCall } : {}),
    ...(logsDir !== undefined ? { logFile: join(logsDir, MODEL_WIRE_LOG) } : {}),
  });
}
