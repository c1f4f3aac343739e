/**
 * The script file of `codex-mmo scripted-model --script FILE` (pure): JSON naming the steps the
 * scripted model takes in every conversation — call a Tool MCP tool, run a shell command, call
 * any other function Codex offers, reply — and the script handler that plays them. The handler
 * keeps no state: a conversation's next step is the number of tool results and replies already
 * in the request, so concurrent agents (root, native roles, participants) each follow the script.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { didYouMean } from '../../foundation/diagnostics/did-you-mean.js';
import {
  NEWEST_CODEX,
  isOfferedNamespace,
  offeredNamespace,
  offeredToolName,
} from '../../config/codex/codex-versions.js';
import type {
  ModelRequest,
  ScriptHandler,
  ScriptedItem,
} from '../../runtime/codex/scripted-model.js';

/** One step. `{{last_output}}` in a reply is replaced by the latest tool result. */
export type ScriptStep =
  | { readonly reply: string }
  | { readonly shell: string }
  | { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> }
  | {
      readonly function: string;
      readonly namespace?: string;
      readonly arguments: Readonly<Record<string, unknown>>;
    };

/** Steps for agents that are offered a server (`when_offered`), or for every agent. */
export interface ScriptSection {
  readonly whenOffered?: string;
  readonly steps: readonly ScriptStep[];
}

export interface ModelScript {
  readonly sections: readonly ScriptSection[];
}

/** Longest tool result substituted for `{{last_output}}` (characters). */
export const LAST_OUTPUT_MAX = 2000;

const STEP_KINDS = ['reply', 'shell', 'tool', 'function'] as const;
const STEP_KEYS: Readonly<Record<(typeof STEP_KINDS)[number], readonly string[]>> = {
  reply: ['reply'],
  shell: ['shell'],
  tool: ['tool', 'arguments'],
  function: ['function', 'namespace', 'arguments'],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The built-in script: reply with the tools the agent is offered, then stop. */
export const DEFAULT_SCRIPT: ModelScript = {
  sections: [{ steps: [{ reply: '[scripted model] offered tools: {{offered_tools}}' }] }],
};

/**
 * Parses a script file's text. `{"steps": [...]}` is one section for every agent;
 * `{"scripts": [{"when_offered": "SERVER", "steps": [...]}, …]}` picks, per request, the first
 * section whose server the agent is offered (a section without `when_offered` matches any).
 */
export function parseModelScript(
  text: string,
  file: string,
): { script?: ModelScript; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const invalidAt = (path: string, message: string): void => {
    diagnostics.push(diagnostic({ code: 'model-script-invalid', message, file, path }));
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    invalidAt('', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    return { diagnostics };
  }
  if (!isRecord(value)) {
    invalidAt('', 'a script is a JSON object: {"steps": [...]} or {"scripts": [...]}');
    return { diagnostics };
  }
  const rawSections: { path: string; value: unknown }[] = [];
  for (const key of Object.keys(value)) {
    if (key !== 'steps' && key !== 'scripts') {
      invalidAt(key, `unknown key "${key}"${didYouMean(key, ['steps', 'scripts'])}`);
    }
  }
  if (Object.hasOwn(value, 'steps') === Object.hasOwn(value, 'scripts')) {
    invalidAt('', 'give exactly one of "steps" (one script for every agent) or "scripts"');
  } else if (Object.hasOwn(value, 'steps')) {
    rawSections.push({ path: '', value: { steps: value.steps } });
  } else if (!Array.isArray(value.scripts) || value.scripts.length === 0) {
    invalidAt('scripts', '"scripts" is a non-empty array of {"when_offered"?, "steps"}');
  } else {
    value.scripts.forEach((section, index) => {
      rawSections.push({ path: `scripts[${index}]`, value: section });
    });
  }
  const sections: ScriptSection[] = [];
  for (const raw of rawSections) {
    const section = parseSection(raw.value, raw.path, invalidAt);
    if (section !== undefined) sections.push(section);
  }
  if (diagnostics.length > 0) return { diagnostics };
  return { script: { sections }, diagnostics };
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function parseSection(
  value: unknown,
  path: string,
  invalidAt: (path: string, message: string) => void,
): ScriptSection | undefined {
  if (!isRecord(value)) {
    invalidAt(path, 'a script section is an object {"when_offered"?: "SERVER", "steps": [...]}');
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'steps' && key !== 'when_offered') {
      invalidAt(
        join(path, key),
        `unknown key "${key}"${didYouMean(key, ['steps', 'when_offered'])}`,
      );
    }
  }
  const when = value.when_offered;
  if (when !== undefined && (typeof when !== 'string' || when === '')) {
    invalidAt(join(path, 'when_offered'), 'when_offered is a Tool MCP server ID (a string)');
  }
  const steps = value.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    invalidAt(join(path, 'steps'), '"steps" is a non-empty array of steps');
    return undefined;
  }
  const parsed: ScriptStep[] = [];
  steps.forEach((step, index) => {
    const out = parseStep(step, join(join(path, 'steps'), index), invalidAt);
    if (out !== undefined) parsed.push(out);
  });
  return { ...(typeof when === 'string' ? { whenOffered: when } : {}), steps: parsed };
}

function parseStep(
  value: unknown,
  path: string,
  invalidAt: (path: string, message: string) => void,
): ScriptStep | undefined {
  const shapes =
    '{"reply": TEXT}, {"shell": COMMAND}, {"tool": "SERVER.TOOL", "arguments": {...}} or {"function": NAME, "namespace"?: NS, "arguments": {...}}';
  if (!isRecord(value)) {
    invalidAt(path, `a step is one of ${shapes}`);
    return undefined;
  }
  const kinds = STEP_KINDS.filter((k) => Object.hasOwn(value, k));
  const kind = kinds[0];
  if (kind === undefined || kinds.length > 1) {
    invalidAt(path, `a step is exactly one of ${shapes}`);
    return undefined;
  }
  let ok = true;
  for (const key of Object.keys(value)) {
    if (!STEP_KEYS[kind].includes(key)) {
      invalidAt(join(path, key), `a "${kind}" step has no key "${key}"`);
      ok = false;
    }
  }
  const main = value[kind];
  if (typeof main !== 'string' || main === '') {
    invalidAt(join(path, kind), `"${kind}" must be a non-empty string`);
    return undefined;
  }
  const args = value.arguments ?? {};
  if ((kind === 'tool' || kind === 'function') && !isRecord(args)) {
    invalidAt(join(path, 'arguments'), '"arguments" must be a JSON object');
    return undefined;
  }
  if (!ok) return undefined;
  switch (kind) {
    case 'reply':
      return { reply: main };
    case 'shell':
      return { shell: main };
    case 'tool': {
      const dot = main.indexOf('.');
      if (dot <= 0 || dot === main.length - 1) {
        invalidAt(join(path, 'tool'), '"tool" is SERVER.TOOL, e.g. "everything.echo"');
        return undefined;
      }
      return { tool: main, arguments: args as Record<string, unknown> };
    }
    case 'function': {
      const namespace = value.namespace;
      if (namespace !== undefined && typeof namespace !== 'string') {
        invalidAt(join(path, 'namespace'), '"namespace" must be a string');
        return undefined;
      }
      return {
        function: main,
        ...(typeof namespace === 'string' ? { namespace } : {}),
        arguments: args as Record<string, unknown>,
      };
    }
  }
}

/** Steps already taken in this conversation: tool results plus earlier replies. */
export function stepsTaken(request: ModelRequest): number {
  const input = Array.isArray(request.body.input) ? request.body.input : [];
  const replies = input.filter(
    (item) => isRecord(item) && item.type === 'message' && item.role === 'assistant',
  ).length;
  return request.toolOutputs.length + replies;
}

/**
 * The namespace Codex gave server `server`'s tools in this request. Codex offers a server under
 * its model-safe name (`my-notes` as `mcp__my_notes`, `offeredNamespace`); when two
 * servers map to one name it renames both `mcp__<name>_<12 hex>`, and the one that offers `tool`
 * is taken when exactly one does. Without a match, the predictable name (Codex answers that the
 * tool is unknown).
 */
function mcpNamespace(request: ModelRequest, server: string, tool: string): string {
  const tools = Array.isArray(request.body.tools) ? request.body.tools : [];
  const namespaces = tools.filter(
    (t): t is Record<string, unknown> & { name: string } =>
      isRecord(t) && t.type === 'namespace' && typeof t.name === 'string',
  );
  const exact = namespaces.find((t) => isOfferedNamespace(NEWEST_CODEX, t.name, server, false));
  if (exact !== undefined) return exact.name;
  const hashed = namespaces.filter(
    (t) =>
      isOfferedNamespace(NEWEST_CODEX, t.name, server, true) &&
      Array.isArray(t.tools) &&
      t.tools.some((inner) => isRecord(inner) && inner.name === tool),
  );
  const only = hashed.length === 1 ? hashed[0] : undefined;
  return only?.name ?? offeredNamespace(NEWEST_CODEX, server) ?? `mcp__${server}`;
}

function offeredSummary(request: ModelRequest): string {
  const mcp = Object.entries(request.offeredTools.mcp).map(
    ([server, tools]) => `${server}: ${tools.join(', ')}`,
  );
  return mcp.length > 0 ? mcp.join('; ') : 'no Tool MCP tools';
}

/** The items one step sends. */
export function itemsOfStep(step: ScriptStep, request: ModelRequest): ScriptedItem[] {
  if ('reply' in step) {
    const last = request.toolOutputs.at(-1)?.output ?? '';
    const text = step.reply
      .replaceAll('{{last_output}}', last.slice(0, LAST_OUTPUT_MAX))
      .replaceAll('{{offered_tools}}', offeredSummary(request));
    return [{ type: 'message', text }];
  }
  if ('shell' in step) {
    return [
      { type: 'function_call', name: 'exec_command', arguments: { cmd: step.shell, login: false } },
    ];
  }
  if ('tool' in step) {
    const dot = step.tool.indexOf('.');
    const server = step.tool.slice(0, dot);
    const tool = offeredToolName(step.tool.slice(dot + 1));
    return [
      {
        type: 'function_call',
        namespace: mcpNamespace(request, server, tool),
        name: tool,
        arguments: step.arguments,
      },
    ];
  }
  return [
    {
      type: 'function_call',
      name: step.function,
      ...(step.namespace !== undefined ? { namespace: step.namespace } : {}),
      arguments: step.arguments,
    },
  ];
}

/** The section an agent follows: the first whose server it is offered, or one without a condition. */
export function sectionFor(script: ModelScript, request: ModelRequest): ScriptSection | undefined {
  const offered = Object.keys(request.offeredTools.mcp).map((name) => `mcp__${name}`);
  return script.sections.find((s) => {
    const server = s.whenOffered;
    if (server === undefined || Object.hasOwn(request.offeredTools.mcp, server)) return true;
    return offered.some(
      (ns) =>
        isOfferedNamespace(NEWEST_CODEX, ns, server, false) ||
        isOfferedNamespace(NEWEST_CODEX, ns, server, true),
    );
  });
}

/**
 * A script handler that plays `script`; after the last step it ends the turn with a reply. A
 * request that offers no tool is answered with a reply and takes no step.
 */
export function scriptHandler(script: ModelScript): ScriptHandler {
  return (request) => {
    // a request offering no tool at all is Codex's own (0.171 asks for a task title beside the
    // first turn): answered, the script kept for the agents
    const tools = request.body.tools;
    if (!Array.isArray(tools) || tools.length === 0) {
      return [{ type: 'message', text: '[scripted model] no tools offered' }];
    }
    const section = sectionFor(script, request);
    if (section === undefined) {
      return [{ type: 'message', text: '[scripted model] no script section for this agent' }];
    }
    const step = section.steps[stepsTaken(request)];
    if (step === undefined) return [{ type: 'message', text: '[scripted model] script finished' }];
    return itemsOfStep(step, request);
  };
}
