/**
 * Where a session's pack file says what it says, for warnings about the pack's own settings that
 * `run` and `exec` give before a session starts (file, line and key path, as `profile doctor`
 * gives them). A pack that cannot be found or read again gives none: the warning still names the
 * role and key.
 */
import { join } from 'node:path';

import { MAX_PACK_FILE_BYTES } from '../../config/profile/load-pack.js';
import { PACK_FILE } from '../../config/profile/pack-fields.js';
import { locatePack } from '../../config/profile/pack-store.js';
import type { PlanSource } from '../../config/profile/resolve-plan.js';
import type { ProfileData, ResolvedPlan } from '../../config/profile/types.js';
import { readConfigFile } from '../../config/registry/read-config-file.js';
import { scanKeyPositionsOfBytes } from '../../foundation/toml/key-positions.js';

/** Whether a role the session runs has a setting a pack-located warning is given for. */
export function warnsOnPack(profile: ProfileData, plan: ResolvedPlan): boolean {
  return plan.processes
    .flatMap((p) => p.roles)
    .some((role) => profile.agents[role]?.permissions === 'full-access');
}

/** The pack file of `nameOrPath` and its key positions, or undefined. */
export async function packSource(
  nameOrPath: string,
  dataDir: string,
  cwd: string,
): Promise<PlanSource | undefined> {
  const dir = await locatePack(nameOrPath, dataDir, cwd);
  if (dir === undefined) return undefined;
  const file = join(dir, PACK_FILE);
  const read = await readConfigFile(file, MAX_PACK_FILE_BYTES);
  return read.kind === 'ok' ? { file, positions: scanKeyPositionsOfBytes(read.bytes) } : undefined;
}
