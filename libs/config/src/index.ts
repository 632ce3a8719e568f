export { ENV_SCHEMA } from './env-schema.js';
export type { Env } from './env-schema.js';
export { loadConfig, ConfigError } from './load-config.js';
export type { Config } from './load-config.js';
export { renderConfigTable, spliceConfigTable, CONFIG_TABLE_BEGIN, CONFIG_TABLE_END } from './config-table.js';
