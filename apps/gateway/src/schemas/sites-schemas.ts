import { z } from 'zod';
import { ApiError } from '@sightline/errors';
import type { sitesV1 } from '@sightline/proto';

export const SiteObject = z
  .object({
    site_id: z.number().int(),
    name: z.string().describe('The origin given at creation.'),
    hash: z.string().describe('Anyone holding it can read the stats when the public dashboard is on.'),
    timezone: z.string(),
    week_start: z.number().int().describe('0 = Sunday … 6 = Saturday.'),
    hobby: z.boolean(),
    script_url: z.string(),
    snippet: z.string().describe('Install as returned; do not build the URL from the id.'),
  })
  .meta({ id: 'Site' });

export const SiteWithRoleObject = SiteObject.extend({ role: z.enum(['owner', 'admin', 'member']) }).meta({ id: 'SiteWithRole' });

export const CreateSiteBody = z.object({
  url: z.string().max(2048).describe('Full origin including the scheme, e.g. https://example.net.'),
  timezone: z.string().max(64).optional().describe('IANA name; default the server’s time zone.'),
  hobby: z.boolean().optional().describe('Asks for the free tier; only certain hosting domains qualify.'),
});

export const UpdateSiteBody = z.object({
  url: z.string().max(2048).optional(),
  timezone: z.string().max(64).optional(),
  week_start: z.number().int().min(0).max(6).optional(),
});

/** `{id}` as the spec uses it; anything that is not a site id is simply no site. */
export const SiteParams = z.object({ id: z.string().max(20) });

/**
 * The one parser of a site id from a path: a decimal integer from 1 to 2^53-1.
 * Ids travel as int64 but are JavaScript numbers end to end, so a larger one can
 * never have been issued; like any unreachable id it is 404 `unknown_site`, never
 * a number the services would fail to decode.
 */
export function siteIdOf(raw: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) throw new ApiError('unknown_site');
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw new ApiError('unknown_site');
  return id;
}

export function toSiteObject(site: sitesV1.Site | undefined): z.infer<typeof SiteObject> {
  if (!site) throw new Error('sites answered without a site');
  return {
    site_id: site.siteId,
    name: site.name,
    hash: site.hash,
    timezone: site.timezone,
    week_start: site.weekStart,
    hobby: site.hobby,
    script_url: site.scriptUrl,
    snippet: site.snippet,
  };
}

export const MemberObject = z
  .object({ account_id: z.number().int(), email: z.string(), role: z.enum(['owner', 'admin', 'member']), added_at: z.string() })
  .meta({ id: 'Member' });

export const AddMemberBody = z.object({ email: z.string().max(320), role: z.string().max(20).describe('admin or member.') });

export const GoalObject = z
  .object({
    goal_id: z.number().int(),
    event_name: z.string().nullable(),
    page_path: z.string().nullable(),
    display_name: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'Goal' });

export const CreateGoalBody = z.object({
  event_name: z.string().max(120).optional().describe('A custom event goal…'),
  page_path: z
    .string()
    .max(2048)
    .optional()
    .describe('…or a page goal; `*` matches any characters (a run of `*` is one wildcard). At most 16 wildcards, else 400 `invalid_request`.'),
  display_name: z.string().max(120).optional().describe('Default: the event name, or `Visit <path>`.'),
});

export function toGoalObject(goal: sitesV1.Goal): z.infer<typeof GoalObject> {
  return {
    goal_id: goal.goalId,
    event_name: goal.eventName ?? null,
    page_path: goal.pagePath ?? null,
    display_name: goal.displayName,
    created_at: goal.createdAt,
  };
}

export const FunnelObject = z
  .object({ funnel_id: z.number().int(), name: z.string(), steps: z.array(GoalObject), created_at: z.string() })
  .meta({ id: 'Funnel' });

export const CreateFunnelBody = z.object({
  name: z.string().max(120),
  steps: z.array(z.number().int()).max(20).describe('2 to 8 distinct goal ids, in order.'),
});

export function toFunnelObject(funnel: sitesV1.Funnel): z.infer<typeof FunnelObject> {
  return { funnel_id: funnel.funnelId, name: funnel.name, steps: funnel.steps.map(toGoalObject), created_at: funnel.createdAt };
}

export const AuditEntryObject = z
  .object({
    entry_id: z.number().int(),
    action: z.string(),
    key_id: z.string(),
    ip: z.string(),
    user_agent: z.string(),
    request_id: z.string(),
    created_at: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });

export const AuditQuery = z.object({
  limit: z.coerce.number({ error: 'limit must be an integer from 1 to 200, given once.' }).int().min(1).max(200).optional().describe('1 to 200, default 50.'),
  cursor: z.string().max(200).optional().describe('`next_cursor` of the previous page.'),
});

export function toAuditEntry(entry: sitesV1.AuditEntry): z.infer<typeof AuditEntryObject> {
  let details: Record<string, unknown> = {};
  try {
    details = entry.detailsJson ? (JSON.parse(entry.detailsJson) as Record<string, unknown>) : {};
  } catch {
    details = {};
  }
  return {
    entry_id: entry.entryId,
    action: entry.action,
    key_id: entry.keyId,
    ip: entry.ip,
    user_agent: entry.userAgent,
    request_id: entry.requestId,
    created_at: entry.createdAt,
    details,
  };
}
