import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { APP_ENVS, ConfigError, configSchema, ENV_OVERRIDES, LIST_SETTINGS, type AppConfig } from './config.js';
import { tracingRequested } from '../telemetry/tracing-requested.js';

const CONFIG_DIR = fileURLToPath(new URL('../../config/', import.meta.url));

type Env = Readonly<Record<string, string | undefined>>;

/** Reads config/<APP_ENV>.json, applies environment overrides, validates and freezes. */
export function loadConfig(env: Env = process.env): AppConfig {
  const appEnv = env.APP_ENV === undefined || env.APP_ENV === '' ? 'local' : env.APP_ENV;
  if (!(APP_ENVS as readonly string[]).includes(appEnv)) {
    throw new ConfigError(`Invalid setting APP_ENV: must be one of ${APP_ENVS.join(', ')} (got "${appEnv}")`);
  }
  const file = readConfigFile(appEnv);
  const merged = { ...withEnvOverrides(file, env), appEnv };
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid setting ${settingName(issue.path)}: ${issue.message}`);
  }
  const servers = {
    production: String(readConfigFile('production').baseUrl),
    staging: String(readConfigFile('staging').baseUrl),
  };
  return deepFreeze({ ...parsed.data, servers, tracing: tracingRequested(env) });
}

function readConfigFile(appEnv: string): Record<string, unknown> {
  const path = `${CONFIG_DIR}${appEnv}.json`;
  try {
    const data: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!isObject(data)) throw new Error('not a JSON object');
    return data;
  } catch (error) {
    throw new ConfigError(`Invalid config file ${path}: ${(error as Error).message}`);
  }
}

function withEnvOverrides(file: Record<string, unknown>, env: Env): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...file, mongodb: isObject(file.mongodb) ? { ...file.mongodb } : {} };
  for (const [path, name] of Object.entries(ENV_OVERRIDES)) {
    const raw = env[name];
    const isList = LIST_SETTINGS.has(path);
    if (raw === undefined || (raw === '' && !isList)) continue;
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) merged[head] = isList ? splitList(raw) : raw;
    else (merged[head] as Record<string, unknown>)[tail] = raw;
  }
  return merged;
}

function settingName(path: readonly PropertyKey[]): string {
  const key = path.filter((part) => typeof part === 'string').join('.');
  return ENV_OVERRIDES[key] ?? (key || 'config');
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
