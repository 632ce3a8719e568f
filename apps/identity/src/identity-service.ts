import { unary } from '@sightline/grpc-kit';
import type { identityV1 } from '@sightline/proto';
import type { IdentityContext } from './identity-context.js';
import { createKey, listKeys, revokeKey, rotateKey } from './keys/key-management.js';
import { verifyKey } from './keys/verify-key.js';
import { sendOtp } from './otp/send-otp.js';
import { verifyOtp } from './otp/verify-otp.js';
import { getPlan, setSubscription, startTrial } from './plans/plans.js';
import { reportUsage } from './usage/report-usage.js';
import { describeAccounts, findAccount } from './accounts/account-lookup.js';
import { startWebSession } from './sessions/start-web-session.js';
import { verifyWebSession } from './sessions/verify-web-session.js';
import { revokeAllWebSessions, revokeWebSession } from './sessions/revoke-web-sessions.js';

/** The IdentityService RPCs, each behind the standard handler adapter (errors, request id, trace span). */
export function identityServiceImplementation(ctx: IdentityContext): identityV1.IdentityServiceServer {
  const { log } = ctx;
  return {
    sendOtp: unary('Identity/SendOtp', log, (request: identityV1.SendOtpRequest) => sendOtp(ctx, request)),
    verifyOtp: unary('Identity/VerifyOtp', log, (request: identityV1.VerifyOtpRequest) => verifyOtp(ctx, request)),
    verifyKey: unary('Identity/VerifyKey', log, (request: identityV1.VerifyKeyRequest) => verifyKey(ctx, request)),
    listKeys: unary('Identity/ListKeys', log, (request: identityV1.ListKeysRequest) => listKeys(ctx, request)),
    createKey: unary('Identity/CreateKey', log, (request: identityV1.CreateKeyRequest) => createKey(ctx, request)),
    rotateKey: unary('Identity/RotateKey', log, (request: identityV1.RotateKeyRequest) => rotateKey(ctx, request)),
    revokeKey: unary('Identity/RevokeKey', log, (request: identityV1.RevokeKeyRequest) => revokeKey(ctx, request)),
    setSubscription: unary('Identity/SetSubscription', log, (request: identityV1.SetSubscriptionRequest) => setSubscription(ctx, request)),
    getPlan: unary('Identity/GetPlan', log, (request: identityV1.GetPlanRequest) => getPlan(ctx, request)),
    startTrial: unary('Identity/StartTrial', log, (request: identityV1.StartTrialRequest) => startTrial(ctx, request)),
    findAccount: unary('Identity/FindAccount', log, (request: identityV1.FindAccountRequest) => findAccount(ctx, request)),
    describeAccounts: unary('Identity/DescribeAccounts', log, (request: identityV1.DescribeAccountsRequest) => describeAccounts(ctx, request)),
    reportUsage: unary('Identity/ReportUsage', log, (request: identityV1.ReportUsageRequest) => reportUsage(ctx, request)),
    startWebSession: unary('Identity/StartWebSession', log, (request: identityV1.StartWebSessionRequest) => startWebSession(ctx, request)),
    verifyWebSession: unary('Identity/VerifyWebSession', log, (request: identityV1.VerifyWebSessionRequest) => verifyWebSession(ctx, request)),
    revokeWebSession: unary('Identity/RevokeWebSession', log, (request: identityV1.RevokeWebSessionRequest) => revokeWebSession(ctx, request)),
    revokeAllWebSessions: unary('Identity/RevokeAllWebSessions', log, (request: identityV1.RevokeAllWebSessionsRequest) => revokeAllWebSessions(ctx, request)),
  };
}
