import { z } from 'zod';

export const FeatureEntry = z
  .object({
    id: z.string(),
    label: z.string(),
    enabled: z.boolean(),
    locked: z.boolean().describe('Stays on whatever is sent.'),
    default: z.boolean(),
    requires: z.array(z.string()).optional(),
    size_br: z.number().int().describe('Marginal compressed cost in bytes (brotli).'),
  })
  .meta({ id: 'TrackingFeature' });

export const TrackingSettingsObject = z
  .object({
    site_id: z.number().int(),
    version: z.number().int(),
    bundle: z.string().describe('minimal, standard, full, or custom.'),
    enabled: z.array(z.string()),
    features: z.array(FeatureEntry),
  })
  .meta({ id: 'TrackingSettings' });

export const PutTrackingBody = z.object({
  features: z.array(z.string().max(40)).max(50).describe('The whole new selection; [] keeps only the locked features.'),
});

const hostnameList = z.array(z.string().max(253)).max(500);
export const HostnamesObject = z.object({ allowed: hostnameList, blocked: hostnameList }).meta({ id: 'Hostnames' });

export const BlockedIpsBody = z.array(z.string().max(64)).max(1000).describe('IP addresses (or CIDR ranges).');
export const BlockedIpsObject = z.object({ blocked_ips: z.array(z.string()) }).meta({ id: 'BlockedIps' });

const countryCodes = z.array(z.string().max(8)).max(300);
export const CountriesBody = z.object({ allowed: countryCodes, blocked: countryCodes });
const CountryEntry = z.object({ code: z.string(), created_at: z.string() });
export const CountriesObject = z.object({ allowed: z.array(CountryEntry), blocked: z.array(CountryEntry) }).meta({ id: 'Countries' });

export const FilterWriteAnswer = z.object({ site_id: z.number().int(), count: z.number().int() }).meta({ id: 'FilterWrite' });

export const PublicDashboardObject = z.object({ enabled: z.boolean() }).meta({ id: 'PublicDashboard' });
