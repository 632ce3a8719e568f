/**
 * The visit's channel: Google's GA4 default channel grouping
 * (https://support.google.com/analytics/answer/9756891), first matching rule wins,
 * case-insensitive; plus `AI Assistants`, checked just before Organic Search.
 *
 * Where GA4 relies on its own tagging, a cookieless tracker infers it:
 * - a referrer with no utm_medium has medium `referral` (GA4 sets that too), except a
 *   webmail referrer (Snowplow's email providers), which is Email;
 * - an ad click id stands for a paid medium when utm_medium is absent: gclid and its
 *   iOS variants mean Google Ads (cpc on Google), msclkid Microsoft Ads, dclid
 *   Display & Video 360 (cpm), ttclid/twclid/li_fat_id/rdt_cid/ScCid paid social.
 *   fbclid is not paid: Facebook adds it to every outbound link.
 * - a source's category comes from the GA4 list by source name, then by referrer
 *   host, then from Snowplow's medium (search/social) for the host.
 * Nothing matching → `Unassigned` (GA4's name).
 */
import { hostAndParents, stripWww } from './hostnames.js';
import { lookupReferer } from './referer-names.js';
import { sourceCategory, type SourceCategory } from './source-categories.js';

export interface ChannelInput {
  source: string;
  referrerHost: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  click_id: string;
}

export const CHANNELS = [
  'Direct',
  'Cross-network',
  'Paid Shopping',
  'Paid Search',
  'Paid Social',
  'Paid Video',
  'Display',
  'Paid Other',
  'Organic Shopping',
  'Organic Social',
  'Organic Video',
  'AI Assistants',
  'Organic Search',
  'Referral',
  'Email',
  'Affiliates',
  'Audio',
  'SMS',
  'Mobile Push Notifications',
  'Unassigned',
] as const;
export type Channel = (typeof CHANNELS)[number];

const PAID_MEDIUM = /^(.*cp.*|ppc|retargeting|paid.*)$/;
const SHOPPING_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/;
const DISPLAY_MEDIUMS = new Set(['display', 'banner', 'expandable', 'interstitial', 'cpm']);
const SOCIAL_MEDIUMS = new Set(['social', 'social-network', 'social-media', 'sm', 'social network', 'social media']);
const REFERRAL_MEDIUMS = new Set(['referral', 'app', 'link']);
const EMAIL = new Set(['email', 'e-mail', 'e_mail', 'e mail']);

const CLICK_IDS: Record<string, { medium: string; category?: SourceCategory }> = {
  gclid: { medium: 'cpc', category: 'search' },
  gbraid: { medium: 'cpc', category: 'search' },
  wbraid: { medium: 'cpc', category: 'search' },
  msclkid: { medium: 'cpc', category: 'search' },
  yclid: { medium: 'cpc', category: 'search' },
  dclid: { medium: 'cpm' },
  ttclid: { medium: 'paid', category: 'social' },
  twclid: { medium: 'paid', category: 'social' },
  li_fat_id: { medium: 'paid', category: 'social' },
  rdt_cid: { medium: 'paid', category: 'social' },
  ScCid: { medium: 'paid', category: 'social' },
  epik: { medium: 'paid', category: 'social' },
};

/** AI chat assistants, by host (and its subdomains) or by the source name people tag them with. */
const AI_HOSTS = new Set([
  'chatgpt.com',
  'chat.openai.com',
  'perplexity.ai',
  'claude.ai',
  'gemini.google.com',
  'bard.google.com',
  'copilot.microsoft.com',
  'chat.deepseek.com',
  'chat.mistral.ai',
  'meta.ai',
  'poe.com',
  'you.com',
  'phind.com',
  'grok.com',
  'character.ai',
  'duck.ai',
  'chat.qwen.ai',
  'kimi.com',
]);
const AI_NAMES = new Set(['chatgpt', 'openai', 'perplexity', 'claude', 'gemini', 'copilot', 'deepseek', 'grok']);

export function classifyChannel(input: ChannelInput): Channel {
  const source = input.source.trim().toLowerCase();
  const host = input.referrerHost.trim().toLowerCase();
  const campaign = input.utm_campaign.trim().toLowerCase();
  const click = CLICK_IDS[input.click_id];
  const referer = host ? lookupReferer(host) : undefined;
  let medium = input.utm_medium.trim().toLowerCase();
  if (!medium && click) medium = click.medium;
  if (!medium && host) medium = referer?.medium === 'email' ? 'email' : 'referral';

  if (!source && !host && !medium && !campaign) return 'Direct';
  if (campaign.includes('cross-network')) return 'Cross-network';

  const category = categoryOf(source, host, referer?.medium) ?? click?.category;
  const paid = PAID_MEDIUM.test(medium);
  const shoppingCampaign = SHOPPING_CAMPAIGN.test(campaign);
  if ((category === 'shopping' || shoppingCampaign) && paid) return 'Paid Shopping';
  if (category === 'search' && paid) return 'Paid Search';
  if (category === 'social' && paid) return 'Paid Social';
  if (category === 'video' && paid) return 'Paid Video';
  if (DISPLAY_MEDIUMS.has(medium)) return 'Display';
  if (paid) return 'Paid Other';
  if (category === 'shopping' || shoppingCampaign) return 'Organic Shopping';
  if (category === 'social' || SOCIAL_MEDIUMS.has(medium)) return 'Organic Social';
  if (category === 'video' || medium.includes('video')) return 'Organic Video';
  if (isAiAssistant(source, host, referer?.medium)) return 'AI Assistants';
  if (category === 'search' || medium === 'organic') return 'Organic Search';
  if (REFERRAL_MEDIUMS.has(medium)) return 'Referral';
  if (EMAIL.has(source) || EMAIL.has(medium)) return 'Email';
  if (medium === 'affiliate') return 'Affiliates';
  if (medium === 'audio') return 'Audio';
  if (source === 'sms' || medium === 'sms') return 'SMS';
  if (medium.endsWith('push') || medium.includes('mobile') || medium.includes('notification') || source === 'firebase') {
    return 'Mobile Push Notifications';
  }
  return 'Unassigned';
}

function categoryOf(source: string, host: string, refererMedium: string | undefined): SourceCategory | undefined {
  const bySource = source ? (sourceCategory(source) ?? sourceCategory(stripWww(source))) : undefined;
  if (bySource || !host) return bySource;
  const byHost = sourceCategory(host) ?? sourceCategory(stripWww(host));
  if (byHost) return byHost;
  // Snowplow knows the host (subdomains such as mail.google.com included): trust its medium
  if (refererMedium) return refererMedium === 'search' || refererMedium === 'social' ? refererMedium : undefined;
  for (const parent of hostAndParents(host)) {
    const hit = sourceCategory(parent);
    if (hit) return hit;
  }
  return undefined;
}

function isAiAssistant(source: string, host: string, refererMedium: string | undefined): boolean {
  if (refererMedium === 'chatbot' || AI_NAMES.has(source) || AI_HOSTS.has(stripWww(source))) return true;
  if (!host) return false;
  for (const candidate of hostAndParents(stripWww(host))) if (AI_HOSTS.has(candidate)) return true;
  return false;
}
