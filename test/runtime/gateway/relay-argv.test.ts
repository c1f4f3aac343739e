import { describe, expect, it } from 'vitest';

import { parseRelayArguments, relayOptionsOf } from '../../../src/runtime/gateway/relay-argv.js';
import { relayLaunch } from '../../../src/runtime/gateway/relay-home.js';

describe('the relay fast start', () => {
  const target = {
    cli: { command: '/usr/bin/node', args: ['/x/dist/cli/main.js'] },
    socketPath: '/s/gateway.sock',
    process: 'root',
    servers: ['a', 'b'],
  };

  it('reads exactly the arguments the gateway renders', () => {
    const args = relayLaunch(target, 'b').args.slice(3);
    const parsed = parseRelayArguments(args, '/cwd');
    expect(parsed).toEqual({
      socketPath: '/s/gateway.sock',
      process: 'root',
      server: 'b',
      tokenEnv: 'CODEX_MMO_GATEWAY_TOKEN_2',
    });
    expect(relayOptionsOf(parsed!, { CODEX_MMO_GATEWAY_TOKEN_2: 'tok' }).token).toBe('tok');
    expect(relayLaunch(target, 'b').args.slice(1, 3)).toEqual(['gateway', 'connect']);
  });

  it('leaves anything else to the full command', () => {
    const good = ['--socket', 's', '--process', 'root', '--server', 'a', '--token-env', 'T'];
    expect(parseRelayArguments(good, '/cwd')?.socketPath).toBe('/cwd/s');
    expect(parseRelayArguments(['--help'], '/cwd')).toBeUndefined();
    expect(parseRelayArguments([...good.slice(0, 6), '--server', 'b'], '/cwd')).toBeUndefined();
    expect(parseRelayArguments([...good.slice(0, 7), '--json'], '/cwd')).toBeUndefined();
    expect(parseRelayArguments([...good.slice(0, 6), '--token', 'T'], '/cwd')).toBeUndefined();
    expect(parseRelayArguments([...good, '--json'], '/cwd')).toBeUndefined();
  });
});
