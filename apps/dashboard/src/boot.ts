/**
 * The page's boot data, written by the gateway as JSON in
 * `<script type="application/json" id="sightline-boot">` (contract "Pages").
 */
export interface Boot {
  page: 'home' | 'site' | 'share';
  site_id?: number;
  share_hash?: string;
  embed: boolean;
  theme: 'light' | 'dark' | 'system';
}

export function readBoot(doc: Document): Boot {
  let raw: Partial<Boot> = {};
  try {
    raw = JSON.parse(doc.getElementById('sightline-boot')?.textContent ?? '{}') as Partial<Boot>;
  } catch {
    raw = {};
  }
  const page = raw.page === 'site' || raw.page === 'share' ? raw.page : 'home';
  const theme = raw.theme === 'light' || raw.theme === 'dark' ? raw.theme : 'system';
  return {
    page,
    ...(typeof raw.site_id === 'number' ? { site_id: raw.site_id } : {}),
    ...(typeof raw.share_hash === 'string' ? { share_hash: raw.share_hash } : {}),
    embed: raw.embed === true,
    theme,
  };
}
