export { openGeoLookup, readGeoDatabases, type GeoDatabases, type GeoLookup, type GeoLocation, type GeoLookupOptions } from './geo-lookup.js';
export { geoLabels } from './geo-labels.js';
export { countryCodeByName, regionCodeByName, cityIdByName } from './geo-names.js';
export { cityPoint, type CityPoint } from './city-points.js';
