/**
 * GA4's source categories (search, social, video, shopping): Google's published list
 * (apps/ingest/data/ga4-source-categories.csv) plus Sightline's additions
 * (channel-sources-extra.csv), keyed by lowercase source name or host. Loaded once at import.
 */
import { readFileSync } from 'node:fs';

export type SourceCategory = 'search' | 'social' | 'video' | 'shopping';

const CATEGORY_BY_TOKEN: Record<string, SourceCategory> = {
  SOURCE_CATEGORY_SEARCH: 'search',
  SOURCE_CATEGORY_SOCIAL: 'social',
  SOURCE_CATEGORY_VIDEO: 'video',
  SOURCE_CATEGORY_SHOPPING: 'shopping',
};

function load(file: string, into: Map<string, SourceCategory>): void {
  const text = readFileSync(new URL(`../../data/${file}`, import.meta.url), 'utf8');
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#') || line.startsWith('source,')) continue;
    const comma = line.lastIndexOf(',');
    const category = CATEGORY_BY_TOKEN[line.slice(comma + 1).trim()];
    if (!category) throw new Error(`${file}: unknown category in ${JSON.stringify(line)}`);
    const source = line.slice(0, comma).trim().toLowerCase();
    // Google's row wins over an addition of ours (the file loaded first)
    if (!into.has(source)) into.set(source, category);
  }
}

const CATEGORIES = new Map<string, SourceCategory>();
load('ga4-source-categories.csv', CATEGORIES);
load('channel-sources-extra.csv', CATEGORIES);

/** The category of a lowercase source name or host, if listed. */
export function sourceCategory(source: string): SourceCategory | undefined {
  return CATEGORIES.get(source);
}
