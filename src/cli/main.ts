#!/usr/bin/env node
/**
 * The `codex-mmo` executable: routes `GROUP COMMAND` to a lazily imported command module, so each
 * invocation loads only the code it needs, and turns unexpected failures into one clean line.
 */
import { homedir } from 'node:os';

import { run } from './router.js';

// A closed pipe (`codex-mmo tool-mcp list | head`) ends output quietly instead of with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const code = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  home: process.env.HOME ?? homedir(),
  isTty: process.stdout.isTTY,
});
process.exitCode = code;
