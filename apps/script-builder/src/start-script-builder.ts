import { LRUCache } from 'lru-cache';
import { SIGHTLINE_STREAMS, STREAM_NAMES, SUBJECTS, startDurableConsumer, type DurableConsumer } from '@sightline/bus';
import { unary } from '@sightline/grpc-kit';
import { scriptBuilderV1 } from '@sightline/proto';
import type { DepsFor, ServiceInstance } from '@sightline/runtime';
import { PRESETS } from '@sightline/tracker-features';
import { BundleCache } from './bundle-cache.js';
import { buildScript, parseSelection, type ScriptCache } from './build-script.js';
import { measureCatalogue } from './catalogue.js';

export const SETTINGS_DURABLE = 'script-builder';

export interface ScriptBuilderOptions {
  /** built bundles kept (LRU by normalized selection); default 64 */
  bundleCacheSize?: number;
  /** rendered per-site scripts kept (LRU); default 2 000 */
  scriptCacheSize?: number;
  /**
   * POST `{"site_id": …}` here on every settings.changed, so a CDN in front of the
   * script URL drops the site's copy. Unset: nothing is called. (Intended config
   * variable: SCRIPT_PURGE_WEBHOOK_URL.)
   */
  purgeWebhookUrl?: string;
  /** consume settings.changed (default true) */
  consumeSettings?: boolean;
}

export interface ScriptBuilderInstance extends ServiceInstance {
  bundles: BundleCache;
}

/**
 * Measures the catalogue (which also pre-warms the base and single-feature
 * bundles), pre-warms the presets, serves ScriptBuilderService, and consumes
 * settings.changed as a signal: pre-warm the new selection when the message
 * carries one, and call the purge webhook when configured.
 */
/** The stores script-builder asks the launcher for. */
export const SCRIPT_BUILDER_NEEDS = { bus: true } as const;

export async function startScriptBuilder(deps: DepsFor<typeof SCRIPT_BUILDER_NEEDS>, options: ScriptBuilderOptions = {}): Promise<ScriptBuilderInstance> {
  const { bus, log } = deps;
  const bundles = new BundleCache(options.bundleCacheSize ?? 64);
  const scripts: ScriptCache = new LRUCache({ max: options.scriptCacheSize ?? 2_000 });
  const catalogue = await measureCatalogue(bundles);
  await Promise.all(Object.values(PRESETS).map((features) => bundles.get(features)));
  log.info({ base_size_br: catalogue.baseSizeBr, features: catalogue.entries.map((e) => `${e.id}:${e.sizeBr}`).join(' ') }, 'tracker catalogue measured');

  let consumer: DurableConsumer | undefined;
  if (options.consumeSettings !== false) {
    await bus.ensureStreams(SIGHTLINE_STREAMS);
    consumer = startDurableConsumer(
      bus,
      {
        stream: STREAM_NAMES.settings,
        durable: SETTINGS_DURABLE,
        filterSubject: SUBJECTS.settingsChanged,
        handler: async (msg) => {
          const { site_id: siteId, kind, features } = msg.data ?? {};
          // the new selection rides in the payload proper (kind tracking); checked anyway: the bus crosses versions
          if (kind === 'tracking' && Array.isArray(features)) {
            try {
              await bundles.get(parseSelection(features.map(String)));
            } catch (error) {
              log.warn({ err: error, site_id: siteId }, 'settings.changed carried an unusable selection');
            }
          }
          if (options.purgeWebhookUrl && siteId !== undefined) {
            const response = await fetch(options.purgeWebhookUrl, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ site_id: siteId }),
              signal: AbortSignal.timeout(5_000),
            });
            // throwing naks: the purge is retried with the message
            if (!response.ok) throw new Error(`purge webhook answered ${response.status}`);
          }
        },
      },
      { onRetry: (error) => log.warn({ err: error }, 'settings.changed consumer could not start; retrying') },
    );
  }

  const implementation: scriptBuilderV1.ScriptBuilderServiceServer = {
    getCatalogue: unary('ScriptBuilder/GetCatalogue', log, async () => ({
      entries: catalogue.entries.map((e) => ({ id: e.id, label: e.label, locked: e.locked, default: e.default, requires: e.requires, sizeBr: e.sizeBr })),
      baseSizeBr: catalogue.baseSizeBr,
    })),
    buildScript: unary('ScriptBuilder/BuildScript', log, (request: scriptBuilderV1.BuildScriptRequest) => buildScript(bundles, scripts, request)),
  };
  return {
    services: [{ definition: scriptBuilderV1.ScriptBuilderServiceService, implementation }],
    bundles,
    stop: async () => {
      await consumer?.stop();
    },
  };
}
