import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { APP_ENVS, ConfigError, configSchema, ENV_OVERRIDES, LIST_SETTINGS, type AppConfig } from './config.js';
import type { SettingsSection } from '../ports/storage-backend.js';
import { STORAGE_BACKENDS, type StorageSettings } from '../storage-backends.js';
import { tracingRequested } from '../telemetry/tracing-requested.js';

const CONFIG_DIR = fileURLToPath(new URL('../../config/', import.meta.url));

type Env = Readonly<Record<string, string | undefined>>;

/** Reads config/<APP_ENV>.json, applies environment overrides, validates and freezes. */
export function loadConfig(env: Env = process.env): AppConfig {
  const appEnv = env.APP_ENV === undefined || env.APP_ENV === '' ? 'local' : env.APP_ENV;
  if (!(APP_ENVS as readonly string[]).includes(appEnv)) {
    throw new ConfigError(`Invalid setting APP_ENV: must be one of ${APP_ENVS.join(', ')} (got "${appEnv}")`);
  }
  const { storageBlocks, rest } = splitFile(readConfigFile(appEnv));
  const parsed = configSchema.safeParse({ ...withEnvOverrides(rest, env), appEnv });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid setting ${settingName(issue.path)}: ${issue.message}`);
  }
  const servers = {
    production: String(readConfigFile('production').baseUrl),
    staging: String(readConfigFile('staging').baseUrl),
  };
  return deepFreeze({ ...parsed.data, ...storageSettings(storageBlocks, env), servers, tracing: tracingRequested(env) });
}

/** The blocks of the storage backends that have settings, apart from the service's own settings. */
function splitFile(file: Record<string, unknown>) {
  const rest = { ...file };
  const storageBlocks: Record<string, unknown> = {};
  for (const { name, settings } of STORAGE_BACKENDS) {
    if (settings === undefined) continue;
    storageBlocks[name] = rest[name];
    delete rest[name];
  }
  return { storageBlocks, rest };
}

/** Every backend's settings, whichever STORAGE picks: a mistake shows before the switch, not at it. */
function storageSettings(blocks: Record<string, unknown>, env: Env): StorageSettings {
  const settings: Record<string, unknown> = {};
  for (const { name, settings: section } of STORAGE_BACKENDS) {
    if (section === undefined) continue;
    const block = isObject(blocks[name]) ? { ...blocks[name] } : {};
    for (const [key, variable] of Object.entries(section.env)) {
      const raw = env[variable];
      if (raw !== undefined && raw !== '') block[key] = raw;
    }
    settings[name] = validated(name, section, block);
  }
  return settings as StorageSettings;
}

function validated<Settings>(name: string, section: SettingsSection<Settings>, block: Record<string, unknown>): Settings {
  const result = section.schema['~standard'].validate(block);
  if (result instanceof Promise) throw new Error(`The ${name} settings must validate synchronously`);
  if (result.issues === undefined) return result.value;
  const issue = result.issues[0]!;
  const key = (issue.path ?? []).map((part) => (typeof part === 'object' ? part.key : part)).filter((part) => typeof part === 'string').join('.');
  throw new ConfigError(`Invalid setting ${section.env[key] ?? [name, key].filter(Boolean).join('.')}: ${issue.message}`);
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
  const merged: Record<string, unknown> = { ...file };
  for (const [key, name] of Object.entries(ENV_OVERRIDES)) {
    const raw = env[name];
    const isList = LIST_SETTINGS.has(key);
    if (raw === undefined || (raw === '' && !isList)) continue;
    merged[key] = isList ? splitList(raw) : raw;
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
