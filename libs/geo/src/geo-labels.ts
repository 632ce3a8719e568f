// Readable names for the query's `labels` map (visit:country, visit:region, visit:city).
// Shown names come from DB-IP Lite and GeoNames data: credit both wherever they appear.
import { geoData } from './geo-data.js';

export const geoLabels = {
  /** `"DE"` → `"Germany"`. */
  countryName(code: string): string | undefined {
    return geoData().file.countries[code];
  },
  /** `"DE-BE"` → `"Berlin"` (the ISO 3166-2 name, in the region's own language). */
  regionName(code: string): string | undefined {
    return geoData().file.regions[code];
  },
  /** GeoNames id `2950159` → `"Berlin"`. */
  cityName(id: number): string | undefined {
    return geoData().cityById.get(id)?.[1];
  },
};
