/**
 * The environment of one Codex process of a plan (session root or participant): the variable
 * names its servers reference, the provider keys of the base settings, and a diagnostic for each
 * referenced variable that has no value — an error when a role of the process requires the
 * server, a warning otherwise. Pure.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { Environment } from '../../foundation/paths/directories.js';
import type { ResolvedPlan, ResolvedProcess } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { referencedEnvVars } from '../../config/registry/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { buildChildEnv } from './child-env.js';

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Variable names the operator's base settings point Codex at: each model provider's `env_key`
 * and the values of its `env_http_headers`.
 */
export function baseProviderEnvNames(base: TomlTable): string[] {
  const names = new Set<string>();
  const providers = base.model_providers;
  if (!isTable(providers)) return [];
  for (const provider of Object.values(providers)) {
    if (!isTable(provider)) continue;
    if (typeof provider.env_key === 'string') names.add(provider.env_key);
    if (isTable(provider.env_http_headers)) {
      for (const value of Object.values(provider.env_http_headers)) {
        if (typeof value === 'string') names.add(value);
      }
    }
  }
  return [...names].sort();
}

export function findProcess(plan: ResolvedPlan, root: string): ResolvedProcess | undefined {
  return plan.processes.find((p) => p.root === root);
}

export interface ProcessEnvironment {
  readonly env: Record<string, string>;
  /** `missing-env-var` diagnostics: errors for required grants, warnings otherwise. */
  readonly diagnostics: Diagnostic[];
  /** Values of this environment that must never appear in output (referenced and auth names). */
  readonly secrets: string[];
}

/** Builds the environment of process `proc` and reports its missing variables. */
export function processEnvironment(
  plan: ResolvedPlan,
  proc: ResolvedProcess,
  base: TomlTable,
  launchEnv: Environment,
  credentials: CredentialSource,
  codexHome: string,
): ProcessEnvironment {
  const { env, missing } = buildChildEnv(proc.env, launchEnv, credentials, {
    codexHome,
    extraNames: baseProviderEnvNames(base),
  });
  const missingSet = new Set(missing);
  const diagnostics: Diagnostic[] = [];
  for (const server of proc.servers) {
    const definition = plan.servers[server];
    if (definition === undefined) continue;
    const requiredBy = proc.roles.filter(
      (role) => plan.roles[role]?.grants[server]?.required === true,
    );
    for (const name of referencedEnvVars(definition)) {
      if (!missingSet.has(name)) continue;
      const where = `set it in ${credentials.file} or in the launch environment`;
      diagnostics.push(
        requiredBy.length > 0
          ? diagnostic({
              code: 'missing-env-var',
              message: `variable ${name} is not set; server '${server}' needs it and ${requiredBy.length === 1 ? 'role' : 'roles'} '${requiredBy.join("', '")}' ${requiredBy.length === 1 ? 'requires' : 'require'} that server; ${where}`,
              server,
            })
          : diagnostic({
              severity: 'warning',
              code: 'missing-env-var',
              message: `variable ${name} is not set; server '${server}' (not required) may fail to start or run without it; ${where}`,
              server,
            }),
      );
    }
  }
  const secretNames = new Set([...proc.env, ...baseProviderEnvNames(base)]);
  const secrets = Object.entries(env)
    .filter(([name]) => secretNames.has(name) || /KEY|TOKEN|SECRET/i.test(name))
    .map(([, value]) => value);
  return { env, diagnostics, secrets };
}
