#!/usr/bin/env node
/**
 * The `codex-mmo` executable: routes `GROUP COMMAND` to a lazily imported command module, so each
 * invocation loads only the code it needs, and turns unexpected failures into one clean line.
 */
import { homedir } from 'node:os';

import { run } from './router.js';

const code = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  home: process.env.HOME ?? homedir(),
  isTty: process.stdout.isTTY,
});
process.exitCode = code;
