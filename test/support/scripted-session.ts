/**
 * A scripted model and a world whose Codex base settings point at it, for one suite:
 * `const session = useScriptedSession(spec, handler)` starts the model, then builds the world
 * (and runs `prepare` on it) in `beforeAll`; the model closes in `afterAll` and the world goes
 * with the test file's temporary directories. `useWorkspaceLeadSession` is the common world of
 * one workspace-write `lead` with the `srv` echo server.
 */
import { beforeAll } from 'vitest';

import type { ScriptHandler } from '../../src/runtime/codex/scripted-model.js';
import {
  echoServer,
  makeWorld,
  workspaceLeadProfile,
  type World,
  type WorldSpec,
} from './world.js';
import {
  useScriptedModel,
  type ScriptedModelFixture,
  type ScriptedModelOptions,
} from './scripted-model-fixture.js';

export interface ScriptedSession extends ScriptedModelFixture {
  /** The world (from the suite's `beforeAll` on). */
  readonly world: World;
}

export interface ScriptedSessionOptions extends ScriptedModelOptions {
  /** Runs on the new world before the suite's own `beforeAll` hooks. */
  readonly prepare?: (world: World) => Promise<void>;
}

/** A scripted model answering with `script` and a world of `spec` pointed at it. */
export function useScriptedSession(
  spec: Omit<WorldSpec, 'modelUrl'>,
  script: ScriptHandler = () => [],
  options: ScriptedSessionOptions = {},
): ScriptedSession {
  const fixture = useScriptedModel(script, options);
  let world: World | undefined;
  beforeAll(async () => {
    world = await makeWorld({ ...spec, modelUrl: fixture.model.baseUrl });
    await options.prepare?.(world);
  });
  return {
    get model() {
      return fixture.model;
    },
    get script() {
      return fixture.script;
    },
    set script(handler: ScriptHandler) {
      fixture.script = handler;
    },
    get world(): World {
      if (world === undefined) throw new Error('the world is built in beforeAll');
      return world;
    },
  };
}

/** A session of one workspace-write `lead` granted `srv` (the echo server offering `note`). */
export function useWorkspaceLeadSession(
  name: string,
  options: ScriptedSessionOptions = {},
): ScriptedSession {
  return useScriptedSession(
    { registry: echoServer('srv', { tools: 'note' }), profile: workspaceLeadProfile(name) },
    () => [],
    options,
  );
}
