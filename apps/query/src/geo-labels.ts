/**
 * Readable names for geo codes (the `labels` of country/region/city breakdowns).
 * libs/geo provides the real implementation (DB-IP/GeoNames data); until it is
 * wired, `intlGeoLabels` names countries with the platform's Intl data and shows
 * region and city codes as they are.
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
