// Hand-checked DB-IP state names → ISO 3166-2 codes, for large regions that no
// automatic rule in match-regions.ts finds (English exonyms of local names). Codes are
// checked against ISO 3166-2 as published by ISO (and Wikipedia's ISO 3166-2:XX pages).
// Extend from the "largest unmatched states" list that `npm run geo:build` prints.

/** Luxembourg's 12 cantons, its ISO 3166-2 subdivisions since 2015 (DB-IP's states; CLDR's names). */
const LUXEMBOURG_CANTONS: Record<string, string> = {
  'LU-CA': 'Capellen',
  'LU-CL': 'Clervaux',
  'LU-DI': 'Diekirch',
  'LU-EC': 'Echternach',
  'LU-ES': 'Esch-sur-Alzette',
  'LU-GR': 'Grevenmacher',
  'LU-LU': 'Luxembourg',
  'LU-ME': 'Mersch',
  'LU-RD': 'Redange',
  'LU-RM': 'Remich',
  'LU-VD': 'Vianden',
  'LU-WI': 'Wiltz',
};

export const REGION_ALIASES: Record<string, Record<string, string>> = {
  DE: {
    Bavaria: 'DE-BY',
    'State of Berlin': 'DE-BE',
    Hesse: 'DE-HE',
    'Lower Saxony': 'DE-NI',
    'North Rhine-Westphalia': 'DE-NW',
    'Rhineland-Palatinate': 'DE-RP',
    Saxony: 'DE-SN',
    'Saxony-Anhalt': 'DE-ST',
    Thuringia: 'DE-TH',
    'Free Hanseatic City of Bremen': 'DE-HB',
  },
  FR: {
    'Auvergne-Rhone-Alpes': 'FR-ARA',
    'Auvergne-Rhône-Alpes': 'FR-ARA',
    'Bourgogne-Franche-Comte': 'FR-BFC',
    'Bourgogne-Franche-Comté': 'FR-BFC',
    'Bourgogne-Franche-Comte Region': 'FR-BFC',
    Brittany: 'FR-BRE',
    'Centre-Val de Loire': 'FR-CVL',
    Corsica: 'FR-20R',
    'Grand Est': 'FR-GES',
    'Hauts-de-France': 'FR-HDF',
    'Île-de-France': 'FR-IDF',
    'Ile-de-France': 'FR-IDF',
    Normandy: 'FR-NOR',
    'New Aquitaine': 'FR-NAQ',
    'Nouvelle-Aquitaine': 'FR-NAQ',
    Occitanie: 'FR-OCC',
    Occitania: 'FR-OCC',
    'Pays de la Loire': 'FR-PDL',
    "Provence-Alpes-Côte d'Azur": 'FR-PAC',
    "Provence-Alpes-Cote d'Azur": 'FR-PAC',
    // Regions merged on 1 January 2016 (Wikipedia "Regions of France"): the region each
    // now lies in, not its pre-2016 code (FR-V, FR-D), so one place has one code. The
    // name-only "Provence" matched Seine-Saint-Denis's department (FR-93) by consensus.
    'Rhone-Alpes': 'FR-ARA',
    Bourgogne: 'FR-BFC',
    Provence: 'FR-PAC',
  },
  // GeoNames' Finnish admin1 numbers are not ISO's (the admin1 rule sent "North Savo" to
  // Pirkanmaa): ISO 3166-2:FI with each region's English name (Wikipedia "Regions of Finland").
  FI: {
    'North Savo': 'FI-15',
    'Kanta-Hame': 'FI-06',
    'South Savo': 'FI-04',
    'North Ostrobothnia': 'FI-14',
    'South Ostrobothnia': 'FI-03',
    'Paijat-Hame': 'FI-16',
    // the city of Tampere lies in Pirkanmaa; Uusimaa (Swedish "Nyland") means "new land"
    Tampere: 'FI-11',
    Newland: 'FI-18',
  },
  // DB-IP's "X Region" is the kraj, not the district of its seat (CZ-532 Pardubice)
  CZ: {
    Prague: 'CZ-PR',
    Zlin: 'CZ-ZL',
    'Pardubice Region': 'CZ-PA',
    'Olomouc Region': 'CZ-OL',
    'Liberec Region': 'CZ-LI',
    'Hradec Kralove Region': 'CZ-KR',
    'Usti nad Labem Region': 'CZ-US',
    'Plzen Region': 'CZ-PL',
  },
  ES: {
    Valencia: 'ES-VC',
    'Balearic Islands': 'ES-IB',
    Catalonia: 'ES-CT',
    Andalusia: 'ES-AN',
    'Castille and Leon': 'ES-CL',
    'Castille-La Mancha': 'ES-CM',
    Navarre: 'ES-NC',
    'Basque Country': 'ES-PV',
    'Canary Islands': 'ES-CN',
  },
  IT: {
    'Aosta Valley': 'IT-23',
    Piedmont: 'IT-21',
    Tuscany: 'IT-52',
    Apulia: 'IT-75',
    Sardinia: 'IT-88',
  },
  NL: { 'North Holland': 'NL-NH', 'South Holland': 'NL-ZH', 'North Brabant': 'NL-NB' },
  AT: {
    Vienna: 'AT-9',
    'Lower Austria': 'AT-3',
    'Upper Austria': 'AT-4',
    Styria: 'AT-6',
    Tyrol: 'AT-7',
    Carinthia: 'AT-2',
  },
  DK: {
    'Capital Region': 'DK-84',
    'Central Jutland': 'DK-82',
    'South Denmark': 'DK-83',
    Zealand: 'DK-85',
    'North Denmark': 'DK-81',
  },
  PL: {
    'Lodz Voivodeship': 'PL-LD',
    Mazovia: 'PL-MZ',
    Silesia: 'PL-SL',
    'Lesser Poland': 'PL-MA',
    'Greater Poland': 'PL-WP',
    'Lower Silesia': 'PL-DS',
    Pomerania: 'PL-PM',
  },
  KR: {
    'Gyeonggi-do': 'KR-41',
    'Jeollanam-do': 'KR-46',
    Seoul: 'KR-11',
    'Gyeongsangbuk-do': 'KR-47',
    'Gyeongsangnam-do': 'KR-48',
    'Chungcheongnam-do': 'KR-44',
  },
  RU: { Moscow: 'RU-MOW', 'St.-Petersburg': 'RU-SPE', 'Moscow Oblast': 'RU-MOS' },
  VN: { Hanoi: 'VN-HN', 'Ho Chi Minh City (HCMC)': 'VN-SG' },
  EG: { Cairo: 'EG-C', Giza: 'EG-GZ', 'Beni Suweif': 'EG-BNS' },
  CO: { 'Bogota D.C.': 'CO-DC' },
  // DB-IP's "F.D." is the federal district, the city (AR-C), not the province named like it (AR-B)
  AR: { 'Buenos Aires F.D.': 'AR-C' },
  ZA: { 'Western Cape': 'ZA-WC', 'KwaZulu-Natal': 'ZA-NL' },
  LT: { Vilnius: 'LT-VL' },
  BG: { 'Sofia-grad': 'BG-22' },
  CN: { 'Inner Mongolia': 'CN-15' },
  TH: { Bangkok: 'TH-10' },
  CL: { 'Santiago Metropolitan': 'CL-RM', "O'Higgins Region": 'CL-LI' },
  // Odesa city is no ISO subdivision of its own (unlike Kyiv, UA-30): the oblast
  UA: { Odesa: 'UA-51' },
  // "Baladiyat" is Arabic for municipality: the municipality of Doha
  QA: { 'Baladiyat ad Dawhah': 'QA-DA' },
  AE: { Dubai: 'AE-DU' },
  // wilayas of 2019, which ISO 3166-2 does not list: the wilaya each was carved from
  DZ: { 'In Salah': 'DZ-11', 'Ouled Djellal': 'DZ-07', Timimoun: 'DZ-01' },
  // the cantons, not the old districts two of them share a name with (LU-D, LU-G)
  LU: Object.fromEntries(Object.entries(LUXEMBOURG_CANTONS).map(([code, name]) => [name, code])),
  // Morocco's 2015 regions, under the codes ISO gave them in 2019 (see RENAMED_REGIONS)
  MA: {
    'Tanger-Tetouan-Al Hoceima': 'MA-01',
    Oriental: 'MA-02',
    'Fes-Meknes': 'MA-03',
    'Rabat-Sale-Kenitra': 'MA-04',
    'Beni Mellal-Khenifra': 'MA-05',
    'Casablanca-Settat': 'MA-06',
    'Marrakesh-Safi': 'MA-07',
    'Draa-Tafilalet': 'MA-08',
    'Souss-Massa': 'MA-09',
    'Guelmim-Oued Noun': 'MA-10',
    'Laayoune-Sakia El Hamra': 'MA-11',
    'Dakhla-Oued Ed-Dahab': 'MA-12',
  },
  TW: { Taipei: 'TW-TPE' },
  // Numbered ISO codes the admin1 rule had mixed up (GeoNames numbers them otherwise), and
  // names a region shares with its prefecture (GN) or ISO writes in another language (CY "Baf")
  // (Dubrovnik-Neretva: the votes of cities500's villages put it in Sisak-Moslavina, HR-03)
  HR: { 'Dubrovacko-Neretvanska': 'HR-19', 'Vukovar-Srijem': 'HR-16' },
  GN: { 'Boke Region': 'GN-B', 'Kankan Region': 'GN-K', Kindia: 'GN-D', 'Nzerekore Region': 'GN-N' },
  CY: { Pafos: 'CY-05', Keryneia: 'CY-06' },
  DO: { Nacional: 'DO-01' },
  KE: { 'Elegeyo-Marakwet': 'KE-05' },
  // Pemba's two regions: Kaskazini (North) and Kusini (South) Pemba
  TZ: { 'Pemba North': 'TZ-06', 'Pemba South': 'TZ-10' },
  GF: { Guyane: 'GF-GF' },
  // "St." is not read as "Saint" in region names; consensus had given Kingston (JM-01)
  JM: { 'St. Andrew': 'JM-02' },
  // Vava'u (TO-05); the admin1 consensus had given Tongatapu
  TO: { Vavau: 'TO-05' },
  // Iż-Żebbuġ is Gozo's council (ISO "Żebbuġ Gozo"); Malta's is Ħaż-Żebbuġ (MT-66)
  MT: { 'Iz-Zebbug': 'MT-65' },
};

/**
 * Names of codes that iso-3166-2 1.0.0 (2016 data) predates: France's 2016 regions,
 * Luxembourg's cantons (it lists the three districts they replaced).
 */
export const EXTRA_REGIONS: Record<string, string> = {
  ...LUXEMBOURG_CANTONS,
  'FR-ARA': 'Auvergne-Rhône-Alpes',
  'FR-BFC': 'Bourgogne-Franche-Comté',
  'FR-BRE': 'Bretagne',
  'FR-CVL': 'Centre-Val de Loire',
  'FR-20R': 'Corse',
  'FR-GES': 'Grand Est',
  'FR-HDF': 'Hauts-de-France',
  'FR-IDF': 'Île-de-France',
  'FR-NOR': 'Normandie',
  'FR-NAQ': 'Nouvelle-Aquitaine',
  'FR-OCC': 'Occitanie',
  'FR-PDL': 'Pays de la Loire',
  'FR-PAC': "Provence-Alpes-Côte d'Azur",
};

/**
 * Codes ISO has given to other regions since iso-3166-2 1.0.0, where CLDR 48 still has the
 * old name: Morocco's 2015 regions took MA-01…MA-12 in 2019 (MA-06 was Meknès-Tafilalet and
 * is now Casablanca-Settat). Their old names neither label nor find the code.
 */
export const RENAMED_REGIONS: Record<string, string> = {
  'MA-01': 'Tanger-Tétouan-Al Hoceïma',
  'MA-02': 'Oriental',
  'MA-03': 'Fès-Meknès',
  'MA-04': 'Rabat-Salé-Kénitra',
  'MA-05': 'Béni Mellal-Khénifra',
  'MA-06': 'Casablanca-Settat',
  'MA-07': 'Marrakech-Safi',
  'MA-08': 'Drâa-Tafilalet',
  'MA-09': 'Souss-Massa',
  'MA-10': 'Guelmim-Oued Noun',
  'MA-11': 'Laâyoune-Sakia El Hamra',
  'MA-12': 'Dakhla-Oued Ed-Dahab',
};

/**
 * Codes ISO has replaced since iso-3166-2 1.0.0 that CLDR lists only under the new code,
 * without an alias: old code → new one, whose English name labels the old (ISO 3166-2:ZA,
 * 2018: ZA-NL became ZA-KZN; without this KwaZulu-Natal was labelled "GaZulu-Natala").
 */
export const RECODED_REGIONS: Record<string, string> = { 'ZA-NL': 'ZA-KZN' };
