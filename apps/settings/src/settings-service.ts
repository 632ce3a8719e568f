import { unary } from '@sightline/grpc-kit';
import type { settingsV1 } from '@sightline/proto';
import { getBlockedIps, putBlockedIps } from './blocked-ips.js';
import { getCountingFilters } from './counting-filters.js';
import { getCountries, putCountries } from './countries.js';
import { getHostnames, putHostnames } from './hostnames.js';
import { getPublicDashboard, putPublicDashboard } from './public-dashboard.js';
import type { SettingsContext } from './settings-context.js';
import { getTracking, putTracking } from './tracking.js';

/** The SettingsService RPCs, each behind the standard handler adapter (errors, request id, trace span). */
export function settingsServiceImplementation(ctx: SettingsContext): settingsV1.SettingsServiceServer {
  const { log } = ctx;
  return {
    getTracking: unary('Settings/GetTracking', log, (r: settingsV1.GetTrackingRequest) => getTracking(ctx, r)),
    putTracking: unary('Settings/PutTracking', log, (r: settingsV1.PutTrackingRequest) => putTracking(ctx, r)),
    getHostnames: unary('Settings/GetHostnames', log, (r: settingsV1.GetHostnamesRequest) => getHostnames(ctx, r)),
    putHostnames: unary('Settings/PutHostnames', log, (r: settingsV1.PutHostnamesRequest) => putHostnames(ctx, r)),
    getBlockedIps: unary('Settings/GetBlockedIps', log, (r: settingsV1.GetBlockedIpsRequest) => getBlockedIps(ctx, r)),
    putBlockedIps: unary('Settings/PutBlockedIps', log, (r: settingsV1.PutBlockedIpsRequest) => putBlockedIps(ctx, r)),
    getCountries: unary('Settings/GetCountries', log, (r: settingsV1.GetCountriesRequest) => getCountries(ctx, r)),
    putCountries: unary('Settings/PutCountries', log, (r: settingsV1.PutCountriesRequest) => putCountries(ctx, r)),
    getPublicDashboard: unary('Settings/GetPublicDashboard', log, (r: settingsV1.GetPublicDashboardRequest) => getPublicDashboard(ctx, r)),
    putPublicDashboard: unary('Settings/PutPublicDashboard', log, (r: settingsV1.PutPublicDashboardRequest) => putPublicDashboard(ctx, r)),
    getCountingFilters: unary('Settings/GetCountingFilters', log, (r: settingsV1.GetCountingFiltersRequest) => getCountingFilters(ctx, r)),
  };
}
