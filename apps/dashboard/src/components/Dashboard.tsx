import { useEffect, useState } from 'preact/hooks';
import type { StatsClient } from '../api/client.js';
import { PANELS } from '../catalogue.js';
import { siteInfo, startDashboard, view } from '../state/store.js';
import type { DashboardState } from '../state/url-state.js';
import { useAsync } from '../state/use-query.js';
import { ExportButton } from './ExportButton.js';
import { FilterBar } from './FilterBar.js';
import { FunnelsPanel } from './FunnelsPanel.js';
import { HelpOverlay, useShortcuts } from './Shortcuts.js';
import { MainGraph } from './MainGraph.js';
import { Panel } from './Panel.js';
import { PeriodPicker } from './PeriodPicker.js';
import { TopStats } from './TopStats.js';

const RELATIVE = new Set(['realtime', 'day', '7d', '28d', '30d', 'month']);
const needsTimezone = (state: DashboardState) => !RELATIVE.has(state.period) || state.compare === 'year';

/** One site's dashboard: controls, top stats, graph and the five panels. */
export function Dashboard({ client, embed }: { client: StatsClient; embed: boolean }) {
  const [started, setStarted] = useState(false);
  useEffect(() => {
    const stop = startDashboard(client);
    setStarted(true);
    return stop;
  }, [client]);
  const site = useAsync('site', () => client.site());
  useEffect(() => {
    if (site.data) {
      siteInfo.value = site.data;
      document.title = `${site.data.domain} · Sightline`;
    }
  }, [site.data]);
  const [help, setHelp] = useState(false);
  useShortcuts(() => setHelp(true));

  if (site.error) {
    const notFound = site.error.status === 404;
    return (
      <main id="main" class="page-message">
        <h1>{notFound ? 'Site not found' : 'Could not load this site'}</h1>
        <p role="alert">{notFound ? 'This site does not exist or you have no access to it.' : site.error.message}</p>
        {!embed && (
          <p>
            <a href="/">Back to your sites</a>
          </p>
        )}
      </main>
    );
  }
  // A period the API resolves itself (30d, month, realtime…) asks the same queries in any
  // timezone: its panels start at once. Explicit dates (yesterday, last month, custom, year
  // over year) wait for the site's timezone, so their first queries already use its dates.
  const ready = siteInfo.value === site.data && site.data !== undefined;
  if (!started || (!ready && needsTimezone(view.value)))
    return (
      <main id="main" class="page-message" aria-busy="true">
        <p>Loading…</p>
      </main>
    );

  return (
    <main id="main" class={embed ? 'dashboard embed' : 'dashboard'}>
      <div class="dashboard-head">
        <h1 class="site-name">{site.data?.domain ?? 'Loading…'}</h1>
        <div class="controls">
          <PeriodPicker />
          <ExportButton />
          <button type="button" class="icon-button" aria-label="Keyboard shortcuts" onClick={() => setHelp(true)}>
            ?
          </button>
        </div>
      </div>
      <FilterBar />
      <TopStats />
      <MainGraph />
      <div class="panels">
        {PANELS.map((panel) => (
          <Panel key={panel.id} spec={panel} />
        ))}
        <FunnelsPanel />
      </div>
      <p class="credits">
        IP geolocation by{' '}
        <a href="https://db-ip.com" rel="noopener noreferrer">
          DB-IP
        </a>{' '}
        (
        <a href="https://creativecommons.org/licenses/by/4.0/" rel="noopener noreferrer">
          CC BY 4.0
        </a>
        )
      </p>
      {help && <HelpOverlay onClose={() => setHelp(false)} />}
    </main>
  );
}
