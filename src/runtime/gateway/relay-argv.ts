/**
 * The relay's fast start: reads the exact argument list the gateway renders for a relay
 * (`--socket PATH --process ID --server S --token-env NAME`, each once) without the CLI's
 * option parser, so the process Codex waits for loads only the relay itself. Anything else
 * (help, a missing or repeated option) is left to the full `gateway connect` command.
 */
import { isAbsolute, resolve } from 'node:path';

import { runRelay, type RelayOptions } from './relay-client.js';

/** What the relay needs from its arguments. */
export interface RelayArguments {
  readonly socketPath: string;
  readonly process: string;
  readonly server: string;
  readonly tokenEnv: string;
}

const FLAGS: Readonly<Record<string, keyof RelayArguments>> = {
  '--socket': 'socketPath',
  '--process': 'process',
  '--server': 'server',
  '--token-env': 'tokenEnv',
};

/** The relay's arguments, or undefined when `args` is not exactly the rendered form. */
export function parseRelayArguments(
  args: readonly string[],
  cwd: string,
): RelayArguments | undefined {
  if (args.length !== 8) return undefined;
  const found: Partial<Record<keyof RelayArguments, string>> = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = FLAGS[args[i] ?? ''];
    const value = args[i + 1] ?? '';
    if (key === undefined || found[key] !== undefined || value === '' || value.startsWith('--')) {
      return undefined;
    }
    found[key] = value;
  }
  const { socketPath, process, server, tokenEnv } = found;
  if (socketPath === undefined || process === undefined || server === undefined) return undefined;
  if (tokenEnv === undefined) return undefined;
  return {
    socketPath: isAbsolute(socketPath) ? socketPath : resolve(cwd, socketPath),
    process,
    server,
    tokenEnv,
  };
}

/** The relay's options from its arguments and environment (stdio streams still to add). */
export function relayOptionsOf(
  parsed: RelayArguments,
  env: Readonly<Record<string, string | undefined>>,
): Pick<RelayOptions, 'socketPath' | 'process' | 'server' | 'token'> {
  return {
    socketPath: parsed.socketPath,
    process: parsed.process,
    server: parsed.server,
    token: env[parsed.tokenEnv] ?? '',
  };
}

/** Runs the relay when `args` is the rendered form; undefined (nothing done) otherwise. */
export async function runRelayFromArguments(
  args: readonly string[],
  io: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly pid: number;
    readonly pidNs?: string | undefined;
    readonly stdin: NodeJS.ReadableStream;
    readonly stdout: NodeJS.WritableStream;
    readonly stderr: (text: string) => void;
  },
): Promise<number | undefined> {
  const parsed = parseRelayArguments(args, io.cwd);
  if (parsed === undefined) return undefined;
  return runRelay({
    ...relayOptionsOf(parsed, io.env),
    pid: io.pid,
    pidNs: io.pidNs,
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
  });
}
