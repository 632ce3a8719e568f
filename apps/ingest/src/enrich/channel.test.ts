import { describe, expect, it } from 'vitest';
import { classifyChannel, type ChannelInput } from './channel.js';

const blank: ChannelInput = { source: '', referrerHost: '', utm_source: '', utm_medium: '', utm_campaign: '', click_id: '' };
const ch = (input: Partial<ChannelInput>) => classifyChannel({ ...blank, ...input });

describe('classifyChannel: one input per GA4 rule', () => {
  it.each<[string, Partial<ChannelInput>]>([
    ['Direct', {}],
    ['Cross-network', { source: 'google', utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'PMax Cross-Network Q1' }],
    ['Paid Shopping', { source: 'amazon.com', utm_source: 'amazon.com', utm_medium: 'cpc' }],
    ['Paid Shopping', { source: 'newsletter', utm_source: 'newsletter', utm_medium: 'paid', utm_campaign: 'summer-shop' }],
    ['Paid Search', { source: 'google', utm_source: 'google', utm_medium: 'cpc' }],
    ['Paid Search', { source: 'Google', referrerHost: 'www.google.com', click_id: 'gclid' }],
    ['Paid Search', { source: 'Bing', referrerHost: 'www.bing.com', click_id: 'msclkid' }],
    ['Paid Social', { source: 'facebook', utm_source: 'facebook', utm_medium: 'paid_social' }],
    ['Paid Social', { source: 'TikTok', referrerHost: 'www.tiktok.com', click_id: 'ttclid' }],
    ['Paid Video', { source: 'youtube', utm_source: 'youtube', utm_medium: 'cpv' }],
    ['Display', { source: 'some-network', utm_source: 'some-network', utm_medium: 'banner' }],
    ['Display', { source: 'dv360', utm_source: 'dv360', utm_medium: 'CPM' }],
    ['Paid Other', { source: 'partner', utm_source: 'partner', utm_medium: 'ppc' }],
    ['Organic Shopping', { source: 'ebay.com', referrerHost: 'www.ebay.com' }],
    ['Organic Social', { source: 'Facebook', referrerHost: 'l.facebook.com' }],
    ['Organic Social', { source: 'Hacker News', referrerHost: 'news.ycombinator.com' }],
    ['Organic Social', { source: 'x.com', referrerHost: 'x.com' }],
    ['Organic Social', { source: 'mastodon', utm_source: 'mastodon', utm_medium: 'social' }],
    ['Organic Social', { source: 'Facebook', referrerHost: 'm.facebook.com', click_id: 'fbclid' }],
    ['Organic Video', { source: 'YouTube', referrerHost: 'www.youtube.com' }],
    ['Organic Video', { source: 'podcast-site', utm_source: 'podcast-site', utm_medium: 'video-embed' }],
    ['AI Assistants', { source: 'ChatGPT', referrerHost: 'chatgpt.com' }],
    ['AI Assistants', { source: 'chatgpt.com', utm_source: 'chatgpt.com' }],
    ['AI Assistants', { source: 'Perplexity.ai', referrerHost: 'www.perplexity.ai' }],
    ['AI Assistants', { source: 'Google Gemini', referrerHost: 'gemini.google.com' }],
    ['AI Assistants', { source: 'claude.ai', referrerHost: 'claude.ai' }],
    ['AI Assistants', { source: 'Microsoft Copilot', referrerHost: 'copilot.microsoft.com' }],
    ['Organic Search', { source: 'Google', referrerHost: 'www.google.co.uk' }],
    ['Organic Search', { source: 'DuckDuckGo', referrerHost: 'duckduckgo.com' }],
    ['Organic Search', { source: 'Ecosia', referrerHost: 'www.ecosia.org' }],
    ['Organic Search', { source: 'site', utm_source: 'site', utm_medium: 'organic' }],
    ['Referral', { source: 'someblog.dev', referrerHost: 'www.someblog.dev' }],
    ['Referral', { source: 'partner', utm_source: 'partner', utm_medium: 'referral' }],
    ['Email', { source: 'newsletter', utm_source: 'newsletter', utm_medium: 'email' }],
    ['Email', { source: 'e-mail', utm_source: 'e-mail' }],
    ['Email', { source: 'Gmail', referrerHost: 'mail.google.com' }],
    ['Affiliates', { source: 'partner', utm_source: 'partner', utm_medium: 'affiliate' }],
    ['Audio', { source: 'spotify-ads', utm_source: 'spotify-ads', utm_medium: 'audio' }],
    ['SMS', { source: 'sms', utm_source: 'sms' }],
    ['SMS', { source: 'twilio', utm_source: 'twilio', utm_medium: 'SMS' }],
    ['Mobile Push Notifications', { source: 'app', utm_source: 'app', utm_medium: 'web-push' }],
    ['Mobile Push Notifications', { source: 'firebase', utm_source: 'firebase' }],
    ['Unassigned', { source: 'newsletter-42', utm_source: 'newsletter-42' }],
  ])('%s ← %j', (channel, input) => {
    expect(ch(input)).toBe(channel);
  });
});

describe('classifyChannel: first rule wins', () => {
  it('cross-network beats paid search', () => {
    expect(ch({ source: 'google', utm_medium: 'cpc', utm_campaign: 'cross-network' })).toBe('Cross-network');
  });
  it('a shopping campaign beats a search source when paid', () => {
    expect(ch({ source: 'google', utm_medium: 'cpc', utm_campaign: 'shopping-q4' })).toBe('Paid Shopping');
  });
  it('a paid medium on a social source is Paid Social, not Organic Social', () => {
    expect(ch({ source: 'Facebook', referrerHost: 'l.facebook.com', utm_medium: 'cpc' })).toBe('Paid Social');
  });
  it('display mediums beat Paid Other (cpm is both)', () => {
    expect(ch({ source: 'x', utm_medium: 'cpm' })).toBe('Display');
  });
  it('a social medium beats a search source; a video medium beats a search source', () => {
    expect(ch({ source: 'google', utm_medium: 'social' })).toBe('Organic Social');
    expect(ch({ source: 'google', utm_medium: 'video' })).toBe('Organic Video');
  });
  it('AI Assistants comes before Organic Search, but after the paid rules', () => {
    expect(ch({ source: 'perplexity.ai', utm_medium: 'organic' })).toBe('AI Assistants');
    expect(ch({ source: 'chatgpt.com', utm_medium: 'cpc' })).toBe('Paid Other');
  });
  it('Referral (medium link) beats Email (source email)', () => {
    expect(ch({ source: 'email', utm_medium: 'link' })).toBe('Referral');
  });
  it('is case-insensitive', () => {
    expect(ch({ source: 'GOOGLE', utm_medium: 'CPC' })).toBe('Paid Search');
    expect(ch({ source: 'Newsletter', utm_medium: 'EMAIL' })).toBe('Email');
  });
});
