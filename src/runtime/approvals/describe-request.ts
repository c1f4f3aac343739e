/**
 * Turns an app-server request to its client into what a person is asked (pure): the kind, the
 * MCP server and tool (or the command, or the changed files) and a masked, bounded rendering of
 * the arguments. Requests that are not approvals (a server's own form, a tool's input request)
 * are not for the queue and yield `undefined`.
 */
import type { ServerRequest } from '../codex/app-server-protocol.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import type { ApprovalAsk, ApprovalKind } from '../protocol/approval-types.js';

/** Longest argument rendering kept in a request (characters). */
export const MAX_ARGUMENT_CHARS = 4000;
/** Files a file change's summary names (all of them are in its bounded arguments). */
const MAX_NAMED_FILES = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function render(value: unknown, secrets: readonly string[]): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value ?? {});
  } catch {
    text = String(value);
  }
  const masked = maskSecrets(text, secrets);
  return masked.length > MAX_ARGUMENT_CHARS
    ? `${masked.slice(0, MAX_ARGUMENT_CHARS)}… (${masked.length} characters)`
    : masked;
}

/** The tool name of an MCP approval: `_meta.tool_name` (0.171), else the quoted name in the message. */
function toolOf(
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
): string | undefined {
  const named = str(meta.tool_name);
  if (named !== undefined) return named;
  const message = str(params.message) ?? '';
  return /tool\s+["'`“]([^"'`”]+)["'`”]/i.exec(message)?.[1];
}

function commandText(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(String).join(' ');
  return str(value);
}

type Described = Omit<ApprovalAsk, 'process' | 'role'>;

function ask(
  kind: ApprovalKind,
  fields: Omit<Described, 'kind' | 'thread'>,
  params: Record<string, unknown>,
): Described {
  const thread = str(params.threadId) ?? str(params.conversationId);
  return { kind, ...(thread !== undefined ? { thread } : {}), ...fields };
}

/** The arguments of an MCP tool call approval as Codex sent them (`_meta.tool_params`). */
export function toolParamsOf(request: ServerRequest): unknown {
  const meta = request.params._meta;
  return isRecord(meta) ? meta.tool_params : undefined;
}

/** What to ask a person about `request`, or `undefined` when it is no approval. */
export function describeApprovalRequest(
  request: ServerRequest,
  secrets: readonly string[],
): Described | undefined {
  const params = request.params;
  const message = str(params.message) ?? str(params.reason);
  const withMessage = message !== undefined ? { message: maskSecrets(message, secrets) } : {};
  switch (request.method) {
    case 'mcpServer/elicitation/request': {
      const meta = isRecord(params._meta) ? params._meta : {};
      if (meta.codex_approval_kind !== 'mcp_tool_call') return undefined;
      const server = str(params.serverName);
      const tool = toolOf(params, meta);
      return ask(
        'mcp_tool_call',
        {
          ...(server !== undefined ? { server } : {}),
          ...(tool !== undefined ? { tool } : {}),
          arguments: render(meta.tool_params ?? {}, secrets),
          ...withMessage,
        },
        params,
      );
    }
    case 'item/commandExecution/requestApproval':
    case 'execCommandApproval': {
      const command = commandText(params.command);
      return ask(
        'command',
        {
          ...(command !== undefined ? { tool: maskSecrets(command, secrets) } : {}),
          arguments: render({ command: params.command ?? null, cwd: params.cwd ?? null }, secrets),
          ...withMessage,
        },
        params,
      );
    }
    case 'item/fileChange/requestApproval':
    case 'applyPatchApproval': {
      const changes = isRecord(params.fileChanges) ? Object.keys(params.fileChanges) : [];
      const named = changes.slice(0, MAX_NAMED_FILES).join(', ');
      const more =
        changes.length > MAX_NAMED_FILES ? ` and ${changes.length - MAX_NAMED_FILES} more` : '';
      return ask(
        'file_change',
        {
          ...(changes.length > 0 ? { tool: maskSecrets(`${named}${more}`, secrets) } : {}),
          arguments: render(
            { files: changes, grantRoot: params.grantRoot ?? null, itemId: params.itemId ?? null },
            secrets,
          ),
          ...withMessage,
        },
        params,
      );
    }
    case 'item/permissions/requestApproval':
      return ask(
        'permissions',
        { arguments: render(params.permissions ?? {}, secrets), ...withMessage },
        params,
      );
    default:
      return undefined;
  }
}
