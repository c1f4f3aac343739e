/**
 * JSON Schema (draft 2020-12) of a registry fragment, generated from the field catalogue so that
 * editors (taplo, Even Better TOML) can complete and check fragments. It expresses the structural
 * rules; codex-mmo's own validation adds what a schema cannot (credential detection, loopback-only
 * http, per-tool overrides naming enabled tools).
 */
import {
  ENV_VAR_NAME_PATTERN,
  FIELDS,
  HEADER_NAME_PATTERN,
  REJECTED_FIELDS,
  type FieldSpec,
} from './field-catalogue.js';
import {
  APPROVAL_MODES,
  REGISTRY_SCHEMA_VERSION,
  RESERVED_SERVER_ID,
  SERVER_ID_PATTERN,
} from './types.js';

type Schema = Record<string, unknown>;

const approvalMode = (description: string): Schema => ({
  type: 'string',
  enum: [...APPROVAL_MODES],
  description,
});

function fieldSchema(spec: FieldSpec): Schema {
  const description = spec.description;
  const env = ENV_VAR_NAME_PATTERN.source;
  const header = HEADER_NAME_PATTERN.source;
  switch (spec.kind) {
    case 'transport':
      return { type: 'string', enum: ['stdio', 'streamable_http'], description };
    case 'command':
      return {
        type: 'string',
        minLength: 1,
        pattern: '^(?:(?:/|~/).*|[^/~\\s][^/\\s]*)$',
        description,
      };
    case 'string-array':
      return { type: 'array', items: { type: 'string' }, description };
    case 'path':
      return { type: 'string', pattern: '^(?:/|~/|~$)', description };
    case 'literal-table':
      return {
        type: 'object',
        propertyNames: { pattern: spec.name === 'env' ? env : header },
        additionalProperties: { type: 'string' },
        description,
      };
    case 'env-var-array':
      return {
        type: 'array',
        items: { type: 'string', pattern: env },
        uniqueItems: true,
        description,
      };
    case 'url':
      return { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description };
    case 'env-var-name':
      return { type: 'string', pattern: env, description };
    case 'header-env-table':
      return {
        type: 'object',
        propertyNames: { pattern: header },
        additionalProperties: { type: 'string', pattern: env },
        description,
      };
    case 'tool-array':
      return {
        type: 'array',
        items: { type: 'string', pattern: '^[^\\s\\u0000-\\u001f\\u007f]+$' },
        minItems: 1,
        uniqueItems: true,
        description,
      };
    case 'approval-mode':
      return approvalMode(description);
    case 'timeout':
      return { type: 'number', exclusiveMinimum: 0, description };
    case 'boolean':
      return { type: 'boolean', description };
    case 'tools-table':
      return {
        type: 'object',
        additionalProperties: {
          type: 'object',
          properties: {
            approval_mode: approvalMode('Approval policy for this tool, overriding the default.'),
          },
          required: ['approval_mode'],
          additionalProperties: false,
        },
        description,
      };
  }
}

function transportBranch(transport: 'stdio' | 'streamable_http'): Schema {
  const own = FIELDS.filter((f) => f.transport === transport);
  const foreign = FIELDS.filter((f) => f.transport !== 'both' && f.transport !== transport);
  const required = own.filter((f) => f.required).map((f) => f.name);
  return {
    if: {
      properties: { transport: { const: transport } },
      required: ['transport'],
    },
    then: {
      required,
      properties: Object.fromEntries([
        ...required.map((name) => [name, true] as const),
        ...foreign.map((f) => [f.name, false] as const),
      ]),
    },
  };
}

/** The JSON Schema of a schema-version-8 registry fragment. */
export function fragmentJsonSchema(): Record<string, unknown> {
  const rejected = [...REJECTED_FIELDS.keys()];
  const server: Schema = {
    type: 'object',
    description: 'A Tool MCP server definition.',
    properties: Object.fromEntries(FIELDS.map((f) => [f.name, fieldSchema(f)])),
    required: FIELDS.filter((f) => f.required && f.transport === 'both').map((f) => f.name),
    additionalProperties: false,
    allOf: [transportBranch('stdio'), transportBranch('streamable_http')],
    $comment: `Rejected fields: ${rejected.join(', ')}.`,
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `codex-mmo Tool MCP registry fragment (schema version ${REGISTRY_SCHEMA_VERSION})`,
    description:
      'A file in ~/.config/codex-mmo/tool-mcp.d/*.toml. Fragments load in byte-wise file-name order; a later definition of an ID replaces the whole earlier one.',
    type: 'object',
    properties: {
      schema_version: {
        type: 'integer',
        const: REGISTRY_SCHEMA_VERSION,
        description: `Registry schema version; must be ${REGISTRY_SCHEMA_VERSION}.`,
      },
      tool_mcp_servers: {
        type: 'object',
        description: 'Tool MCP server definitions, keyed by server ID.',
        propertyNames: {
          pattern: SERVER_ID_PATTERN.source,
          not: { const: RESERVED_SERVER_ID },
        },
        additionalProperties: { $ref: '#/$defs/server' },
      },
    },
    required: ['schema_version'],
    additionalProperties: false,
    $defs: { server },
  };
}
