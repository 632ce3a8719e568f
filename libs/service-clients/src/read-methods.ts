import { commonV1, health, identityV1, queryV1, scriptBuilderV1, settingsV1, sitesV1 } from '@sightline/proto';

/**
 * The methods of each service that may run twice with the same outcome: reads (and
 * VerifyKey and VerifyWebSession, whose only write is an idempotent "last used" hint). A channel retries
 * these on another replica when one is killed mid-call; a write is never retried there,
 * since the replica may have committed it before the connection dropped.
 */
const READS = {
  identity: [
    identityV1.IdentityServiceService.verifyKey.path,
    identityV1.IdentityServiceService.listKeys.path,
    identityV1.IdentityServiceService.getPlan.path,
    identityV1.IdentityServiceService.findAccount.path,
    identityV1.IdentityServiceService.describeAccounts.path,
    identityV1.IdentityServiceService.verifyWebSession.path,
  ],
  sites: [
    sitesV1.SitesServiceService.listSites.path,
    sitesV1.SitesServiceService.getSite.path,
    sitesV1.SitesServiceService.getSiteByTrackingKey.path,
    sitesV1.SitesServiceService.getSiteByHash.path,
    sitesV1.SitesServiceService.listMembers.path,
    sitesV1.SitesServiceService.listGoals.path,
    sitesV1.SitesServiceService.listFunnels.path,
    sitesV1.SitesServiceService.getFunnel.path,
    sitesV1.SitesServiceService.listAudit.path,
    sitesV1.SitesServiceService.listImports.path,
    sitesV1.SitesServiceService.getImport.path,
    // creates the site's salt on first use, idempotently
    sitesV1.SitesServiceService.getWidgetKey.path,
    sitesV1.SitesServiceService.getSiteByWidgetKey.path,
    sitesV1.SitesServiceService.listAnnotations.path,
    sitesV1.SitesServiceService.listSharedAnnotations.path,
  ],
  settings: [
    settingsV1.SettingsServiceService.getTracking.path,
    settingsV1.SettingsServiceService.getHostnames.path,
    settingsV1.SettingsServiceService.getBlockedIps.path,
    settingsV1.SettingsServiceService.getCountries.path,
    settingsV1.SettingsServiceService.getPublicDashboard.path,
    settingsV1.SettingsServiceService.getCountingFilters.path,
  ],
  'script-builder': [scriptBuilderV1.ScriptBuilderServiceService.getCatalogue.path, scriptBuilderV1.ScriptBuilderServiceService.buildScript.path],
  query: [
    queryV1.QueryServiceService.siteActivity.path,
    queryV1.QueryServiceService.query.path,
    queryV1.QueryServiceService.listProps.path,
    queryV1.QueryServiceService.funnelReport.path,
  ],
  // imports: a stream of rows, never replayed by the channel
  ingest: [],
} as const satisfies Record<string, readonly string[]>;

/** Every service also answers these two (readiness checks). */
const COMMON_READS = [health.HealthService.check.path, commonV1.ServiceInfoServiceService.getInfo.path];

/** The method paths of `service` its channel may retry on UNAVAILABLE. */
export function retryableMethodsOf(service: keyof typeof READS): readonly string[] {
  return [...READS[service], ...COMMON_READS];
}
