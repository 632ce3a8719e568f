// sightline.common.v1 spans several .proto files; ts-proto emits one module per file,
// each with its own helper names (protobufPackage, MessageFns, …), so the package's
// public face lists its messages and services explicitly instead of `export *`.
export {
  GetInfoRequest,
  GetInfoResponse,
  StoreStatus,
  ServiceInfoServiceClient,
  ServiceInfoServiceService,
  type ServiceInfoServiceServer,
} from './gen/sightline/common/v1/service_info.js';
export { Actor, AuditContext } from './gen/sightline/common/v1/audit.js';
