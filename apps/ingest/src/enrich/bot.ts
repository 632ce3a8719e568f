/**
 * Is this User-Agent a bot, and which kind? Detection is `isbot` (crawlers, link
 * previews, headless and automated browsers, HTTP libraries and CLI clients) plus a
 * few automation markers it misses; an empty UA is a bot too (no browser sends none).
 * The category comes from well-known crawler tokens: AI crawlers and assistants' fetchers,
 * search engines, uptime monitors; anything else is 'other'. The UA is never stored.
 */
import { isbot } from 'isbot';

export type BotCategory = 'search' | 'ai' | 'monitoring' | 'other';

/** Automation markers isbot 5.2 does not flag (checked on real UAs in bot.test.ts). */
const EXTRA_BOT = /puppeteer|^dart\/|\bcypress\b|webdriver|\bnightmare\b/i;

/** Checked in this order: AI before search (e.g. "Applebot-Extended", "Google-CloudVertexBot"). */
const CATEGORY_PATTERNS: Array<[Exclude<BotCategory, 'other'>, RegExp]> = [
  [
    'ai',
    /gptbot|chatgpt-user|chatgpt-agent|oai-searchbot|claudebot|claude-web|claude-user|claude-searchbot|anthropic-ai|perplexity(bot|-user)|\bccbot|bytespider|amazonbot|meta-external(agent|fetcher)|meta-webindexer|facebookbot|cohere-(ai|training)|diffbot|\byoubot|ai2bot|timpibot|imagesiftbot|omgili|mistralai-user|duckassistbot|google-cloudvertexbot|applebot-extended|google-extended|gemini-deep-research|google-notebooklm|deepseekbot|panscient|iaskspider|img2dataset|webzio-extended|kangaroo bot|cotoyogi|phindbot|novaact|quillbot|andibot|bedrockbot|linerbot|wrtnbot|echobot|friendlycrawler/i,
  ],
  [
    'search',
    /googlebot|google-inspectiontool|storebot-google|adsbot-google|mediapartners-google|googleother|bingbot|bingpreview|msnbot|adidxbot|yandex(bot|images|mobilebot|video|news|blogs|metrika|accessibilitybot|renderresourcesbot|searchshop|favicons|webmaster|directdyn|\w*bot)|baiduspider|duckduckbot|duckduckgo-favicons|applebot|yahoo! slurp|\bslurp\b|sogou|360spider|haosouspider|seznambot|\byeti\b|petalbot|qwantbot|qwantify|mojeekbot|exabot|naverbot|daumoa|coccocbot|yisouspider|bravebot|ecosiabot|marginalia|kagibot|startpagebot/i,
  ],
  [
    'monitoring',
    /uptimerobot|pingdom|statuscake|site24x7|newrelicpinger|new relic synthetics|datadog.*synthetics|datadogsynthetics|betteruptime|better uptime|better stack|uptime-kuma|uptime kuma|hetrixtools|freshping|nodeping|updown\.io|monitis|checkly|monitoring360bot|360 monitoring|hyperping|uptime\.com|uptimebot|cronitor|ohdear|oh dear|zabbix|nagios|check_http|googlestackdrivermonitoring|montastic|panopta|jetmon|uptimia|instatus|statusgator|pulsetic|site-monitor|sitemonitor|upptime|uptrends|catchpoint|gatus|host-tracker|alertra|internetvista|wormly|dotcom-monitor|pagespeed|gtmetrix/i,
  ],
];

export function detectBot(ua: string): { category: BotCategory } | null {
  if (ua.trim() === '') return { category: 'other' };
  if (!isbot(ua) && !EXTRA_BOT.test(ua)) return null;
  for (const [category, pattern] of CATEGORY_PATTERNS) if (pattern.test(ua)) return { category };
  return { category: 'other' };
}
