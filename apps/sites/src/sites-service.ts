import { unary } from '@sightline/grpc-kit';
import type { sitesV1 } from '@sightline/proto';
import { createAnnotation, deleteAnnotation, listAnnotations, listSharedAnnotations, updateAnnotation } from './annotations/annotations.js';
import { listAudit } from './audit/list-audit.js';
import { createFunnel, deleteFunnel, getFunnel, listFunnels } from './funnels/funnels.js';
import { createImport, deleteImport, getImport, listImports } from './imports/import-jobs.js';
import { createGoal, deleteGoal, listGoals } from './goals/goals.js';
import { addMember, listMembers, removeMember } from './members/members.js';
import { createSite } from './sites/create-site.js';
import { deleteSite } from './sites/delete-site.js';
import { getSite, getSiteByHash, getSiteByTrackingKey, listSites } from './sites/read-sites.js';
import { updateSite } from './sites/update-site.js';
import type { SitesContext } from './sites-context.js';
import { getSiteByWidgetKey, getWidgetKey, rotateWidgetKey } from './widgets/widget-keys.js';

/** The SitesService RPCs, each behind the standard handler adapter (errors, request id, trace span). */
export function sitesServiceImplementation(ctx: SitesContext): sitesV1.SitesServiceServer {
  const { log } = ctx;
  return {
    createSite: unary('Sites/CreateSite', log, (r: sitesV1.CreateSiteRequest, call) => createSite(ctx, r, call)),
    listSites: unary('Sites/ListSites', log, (r: sitesV1.ListSitesRequest) => listSites(ctx, r)),
    getSite: unary('Sites/GetSite', log, (r: sitesV1.GetSiteRequest) => getSite(ctx, r)),
    getSiteByTrackingKey: unary('Sites/GetSiteByTrackingKey', log, (r: sitesV1.GetSiteByTrackingKeyRequest) => getSiteByTrackingKey(ctx, r)),
    getSiteByHash: unary('Sites/GetSiteByHash', log, (r: sitesV1.GetSiteByHashRequest) => getSiteByHash(ctx, r)),
    updateSite: unary('Sites/UpdateSite', log, (r: sitesV1.UpdateSiteRequest, call) => updateSite(ctx, r, call)),
    deleteSite: unary('Sites/DeleteSite', log, (r: sitesV1.DeleteSiteRequest, call) => deleteSite(ctx, r, call)),
    listMembers: unary('Sites/ListMembers', log, (r: sitesV1.ListMembersRequest) => listMembers(ctx, r)),
    addMember: unary('Sites/AddMember', log, (r: sitesV1.AddMemberRequest, call) => addMember(ctx, r, call)),
    removeMember: unary('Sites/RemoveMember', log, (r: sitesV1.RemoveMemberRequest, call) => removeMember(ctx, r, call)),
    listGoals: unary('Sites/ListGoals', log, (r: sitesV1.ListGoalsRequest) => listGoals(ctx, r)),
    createGoal: unary('Sites/CreateGoal', log, (r: sitesV1.CreateGoalRequest, call) => createGoal(ctx, r, call)),
    deleteGoal: unary('Sites/DeleteGoal', log, (r: sitesV1.DeleteGoalRequest, call) => deleteGoal(ctx, r, call)),
    listFunnels: unary('Sites/ListFunnels', log, (r: sitesV1.ListFunnelsRequest) => listFunnels(ctx, r)),
    createFunnel: unary('Sites/CreateFunnel', log, (r: sitesV1.CreateFunnelRequest, call) => createFunnel(ctx, r, call)),
    getFunnel: unary('Sites/GetFunnel', log, (r: sitesV1.GetFunnelRequest) => getFunnel(ctx, r)),
    deleteFunnel: unary('Sites/DeleteFunnel', log, (r: sitesV1.DeleteFunnelRequest, call) => deleteFunnel(ctx, r, call)),
    listAudit: unary('Sites/ListAudit', log, (r: sitesV1.ListAuditRequest) => listAudit(ctx, r)),
    createImport: unary('Sites/CreateImport', log, (r: sitesV1.CreateImportRequest, call) => createImport(ctx, r, call)),
    listImports: unary('Sites/ListImports', log, (r: sitesV1.ListImportsRequest) => listImports(ctx, r)),
    getImport: unary('Sites/GetImport', log, (r: sitesV1.GetImportRequest) => getImport(ctx, r)),
    deleteImport: unary('Sites/DeleteImport', log, (r: sitesV1.DeleteImportRequest, call) => deleteImport(ctx, r, call)),
    getWidgetKey: unary('Sites/GetWidgetKey', log, (r: sitesV1.GetWidgetKeyRequest) => getWidgetKey(ctx, r)),
    rotateWidgetKey: unary('Sites/RotateWidgetKey', log, (r: sitesV1.RotateWidgetKeyRequest, call) => rotateWidgetKey(ctx, r, call)),
    getSiteByWidgetKey: unary('Sites/GetSiteByWidgetKey', log, (r: sitesV1.GetSiteByWidgetKeyRequest) => getSiteByWidgetKey(ctx, r)),
    listAnnotations: unary('Sites/ListAnnotations', log, (r: sitesV1.ListAnnotationsRequest) => listAnnotations(ctx, r)),
    createAnnotation: unary('Sites/CreateAnnotation', log, (r: sitesV1.CreateAnnotationRequest, call) => createAnnotation(ctx, r, call)),
    updateAnnotation: unary('Sites/UpdateAnnotation', log, (r: sitesV1.UpdateAnnotationRequest, call) => updateAnnotation(ctx, r, call)),
    deleteAnnotation: unary('Sites/DeleteAnnotation', log, (r: sitesV1.DeleteAnnotationRequest, call) => deleteAnnotation(ctx, r, call)),
    listSharedAnnotations: unary('Sites/ListSharedAnnotations', log, (r: sitesV1.ListSharedAnnotationsRequest) => listSharedAnnotations(ctx, r)),
  };
}
