// Runs the codex-mmo CLI on the example configuration under examples/.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/cli/main.js`;
const result = spawnSync(process.execPath, [cli, '--help'], { stdio: 'inherit' });
process.exitCode = result.status ?? 1;
