// Public face of the generated gRPC contracts. Regenerate with `npm run proto:gen`.
export * as health from './gen/grpc/health/v1/health.js';
export * as commonV1 from './common-v1.js';
export * as identityV1 from './gen/sightline/identity/v1/identity.js';
export * as sitesV1 from './gen/sightline/sites/v1/sites.js';
export * as scriptBuilderV1 from './gen/sightline/script_builder/v1/script_builder.js';
export * as settingsV1 from './gen/sightline/settings/v1/settings.js';
export * as queryV1 from './gen/sightline/query/v1/query.js';
export * as ingestV1 from './gen/sightline/ingest/v1/ingest.js';
