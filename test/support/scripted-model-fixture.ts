/**
 * A scripted model for tests of the built CLI, started in the enclosing suite's `beforeAll` and
 * closed in its `afterAll`: `const fixture = useScriptedModel(handler)`. A test may replace
 * `fixture.script`, which answers every later request; `toolOutputText` joins what the model was
 * shown by the tools it called, for canary searches.
 */
import { afterAll, beforeAll } from 'vitest';

import {
  startScriptedModel,
  type ScriptHandler,
  type ScriptedItem,
  type ScriptedModel,
} from '../../src/runtime/codex/scripted-model.js';
import { requireBuild } from './world.js';

export interface ScriptedModelFixture {
  /** The running model (from the suite's `beforeAll` on). */
  readonly model: ScriptedModel;
  /** What the model answers; a test may replace it. */
  script: ScriptHandler;
}

export interface ScriptedModelOptions {
  /** Called before the model closes, to answer requests a test still holds. */
  readonly release?: () => void;
  /** Whether the suite runs the built CLI, so that a missing build fails first (default true). */
  readonly needsBuild?: boolean;
}

/** Starts a scripted model answering with `script` for the enclosing suite (see the header). */
export function useScriptedModel(
  script: ScriptHandler = () => [],
  options: ScriptedModelOptions = {},
): ScriptedModelFixture {
  let model: ScriptedModel | undefined;
  const fixture = {
    script,
    get model(): ScriptedModel {
      if (model === undefined) throw new Error('the scripted model starts in beforeAll');
      return model;
    },
  };
  beforeAll(async () => {
    if (options.needsBuild !== false) requireBuild();
    model = await startScriptedModel((request) => fixture.script(request));
  });
  afterAll(async () => {
    options.release?.();
    await model?.close();
  });
  return fixture;
}

/** Every tool output the model was shown, one after another. */
export function toolOutputText(model: ScriptedModel): string {
  return model.requests.flatMap((r) => r.toolOutputs.map((o) => o.output)).join('\n');
}

/** A scripted model's call of `name` in `namespace` (an MCP server's is `mcp__<server>`). */
export function functionCall(
  namespace: string,
  name: string,
  args: Record<string, unknown>,
): ScriptedItem {
  return { type: 'function_call', namespace, name, arguments: args };
}
