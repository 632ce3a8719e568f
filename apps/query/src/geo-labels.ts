/**
 * Readable names for geo codes (the `labels` of country/region/city breakdowns).
 * The service uses libs/geo's `geoLabels` (the DB-IP/GeoNames data ingest codes
 * with; wired in index.ts). `intlGeoLabels` names countries from the platform's Intl
 * data only: tests that must not depend on the geo data file use it.
 */
export interface GeoLabels {
  countryName(code: string): string | undefined;
  regionName(code: string): string | undefined;
  cityName(id: number): string | undefined;
}

const countries = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export const intlGeoLabels: GeoLabels = {
  countryName: (code) => (/^[A-Z]{2}$/.test(code) ? countries.of(code) : undefined),
  regionName: () => undefined,
  cityName: () => undefined,
};
