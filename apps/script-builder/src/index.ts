import { defineServiceModule } from '@sightline/runtime';
import { SCRIPT_BUILDER_NEEDS, startScriptBuilder } from './start-script-builder.js';

/**
 * The script-builder service: the tracker feature catalogue with measured sizes,
 * and per-site tracker scripts built per feature selection with esbuild
 * (proto/sightline/script_builder/v1). No database: bundles are derived data,
 * cached in memory and rebuilt on demand. Consumes settings.changed (durable
 * `script-builder`) to pre-warm and, when configured, call a CDN purge webhook.
 */
export const scriptBuilderModule = defineServiceModule({
  name: 'script-builder',
  needs: SCRIPT_BUILDER_NEEDS,
  start: (deps) => startScriptBuilder(deps, { purgeWebhookUrl: deps.config.SCRIPT_PURGE_WEBHOOK_URL }),
});

export { startScriptBuilder, type ScriptBuilderOptions, type ScriptBuilderInstance } from './start-script-builder.js';
