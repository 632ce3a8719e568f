import { describe, expect, it } from 'vitest';
import { SESSION_ATTRIBUTES } from '@sightline/events-schema';
import { DIMENSIONS } from './dimensions.js';
import { FILTER_FIELDS } from './filter-fields.js';

// The query's visit dimensions and filter fields come from the attribute catalogue
// (libs/events-schema/src/attributes.ts): one entry there is one dimension and one field here.
describe('visit dimensions and filter fields from the attribute catalogue', () => {
  it('exposes exactly the queried attributes, as visit:<name> and <name>', () => {
    const queried = SESSION_ATTRIBUTES.filter((a) => a.queried).map((a) => a.name);
    expect(Object.keys(DIMENSIONS).filter((d) => d.startsWith('visit:') && !['visit:entry_page', 'visit:exit_page'].includes(d))).toEqual(
      queried.map((n) => `visit:${n}`),
    );
    expect(
      Object.entries(FILTER_FIELDS)
        .filter(([, f]) => f.level === 'visit')
        .map(([name]) => name),
    ).toEqual(queried);
    // stored, never queried
    expect(DIMENSIONS['visit:click_id']).toBeUndefined();
    expect(FILTER_FIELDS.click_id).toBeUndefined();
  });

  it('reads the empty value as its label, on sessions and events alike', () => {
    expect(DIMENSIONS['visit:source']).toEqual({
      metrics: { visitors: 'sessions', visit_duration: 'sessions', bounce_rate: 'sessions' },
      sessionSql: "if(source = '', 'Direct / None', source)",
      compare: true,
      hostnameFilterColumn: 'hostname',
    });
    expect(DIMENSIONS['visit:screen']).toEqual({
      metrics: { visitors: 'sessions', visit_duration: 'sessions', bounce_rate: 'sessions' },
      sessionSql: "if(screen = '', '(not set)', screen)",
      compare: true,
    });
    expect(DIMENSIONS['visit:city']).toMatchObject({ sessionSql: "if(city = 0, '(not set)', toString(city))", labels: 'city' });
    expect(FILTER_FIELDS.screen).toEqual({
      level: 'visit',
      sessionSql: "if(screen = '', '(not set)', screen)",
      eventSql: "if(screen = '', '(not set)', screen)",
      labelled: { column: 'screen', emptyLabel: '(not set)' },
    });
    // a numeric attribute has no bare-column shortcut: its filter compares the labelled text
    expect(FILTER_FIELDS.city!.labelled).toBeUndefined();
    expect(FILTER_FIELDS.channel!.labelled).toEqual({ column: 'channel', emptyLabel: 'Direct' });
  });
});
