// Country names iso-3166-2 1.0.0 spells in the ISO list style ("Korea, Republic of")
// or by an older name. LABELS replace the readable name; ALIASES are further names
// that name → code lookups (GA4 imports) accept, GA4's spelling included.

export const COUNTRY_LABELS: Record<string, string> = {
  KR: 'South Korea',
  KP: 'North Korea',
  VN: 'Vietnam',
  CZ: 'Czechia',
  MK: 'North Macedonia',
  CD: 'DR Congo',
  FM: 'Micronesia',
  BN: 'Brunei',
  SZ: 'Eswatini',
  MO: 'Macao',
  XK: 'Kosovo',
};

export const COUNTRY_ALIASES: Record<string, string> = {
  'Korea, Republic of': 'KR',
  "Korea, Democratic People's Republic Of": 'KP',
  'Viet Nam': 'VN',
  'Czech Republic': 'CZ',
  Türkiye: 'TR',
  Turkiye: 'TR',
  Macedonia: 'MK',
  'Congo - Kinshasa': 'CD',
  'Congo - Brazzaville': 'CG',
  'Myanmar (Burma)': 'MM',
  Swaziland: 'SZ',
  Macau: 'MO',
  'Cabo Verde': 'CV',
  'Timor-Leste': 'TL',
  'United States of America': 'US',
  USA: 'US',
  UK: 'GB',
  'Great Britain': 'GB',
  'Russian Federation': 'RU',
  "Côte d'Ivoire": 'CI',
  'Ivory Coast': 'CI',
  'St. Kitts & Nevis': 'KN',
  'St. Lucia': 'LC',
  'St. Vincent & Grenadines': 'VC',
  'Vatican City': 'VA',
  'Palestinian Territories': 'PS',
  'Bosnia & Herzegovina': 'BA',
  'Trinidad & Tobago': 'TT',
  'Antigua & Barbuda': 'AG',
};
