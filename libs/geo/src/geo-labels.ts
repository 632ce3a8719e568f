// Readable names for the query's `labels` map (visit:country, visit:region, visit:city).
// Shown names come from DB-IP Lite, GeoNames and CLDR data: credit them wherever they appear.
import { geoData } from './geo-data.js';

export const geoLabels = {
  /** `"DE"` → `"Germany"`. */
  countryName(code: string): string | undefined {
    return geoData().file.countries[code];
  },
  /** `"DE-BY"` → `"Bavaria"`: the English name (CLDR), ISO 3166-2's local one where CLDR has none. */
  regionName(code: string): string | undefined {
    return geoData().file.regions[code];
  },
  /** GeoNames id `2950159` → `"Berlin"`. */
  cityName(id: number): string | undefined {
    return geoData().cityName(id);
  },
};
