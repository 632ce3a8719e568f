import { ApiFailure, sessionApi, type Session, type SiteEntry } from '../api/client.js';
import { useAsync } from '../state/use-query.js';

/** The account's sites (owner, admin or member), each linking to its dashboard. */
export function SitesList({ session }: { session: Session }) {
  const sites = useAsync<{ sites: SiteEntry[] }>('sites', () => sessionApi.sites(session.csrf_token));
  return (
    <main id="main" class="sites-list" aria-busy={sites.loading ? 'true' : 'false'}>
      <h1>Your sites</h1>
      {sites.error && (
        <p role="alert" class="error">
          {sites.error instanceof ApiFailure ? sites.error.message : 'Could not load the sites.'}
        </p>
      )}
      {sites.data && sites.data.sites.length === 0 && <p>No sites yet. Create one with the API (POST /api/v1/sites).</p>}
      {sites.data && sites.data.sites.length > 0 && (
        <ul>
          {sites.data.sites.map((site) => (
            <li key={site.site_id}>
              <a href={`/sites/${site.site_id}`}>{site.name.replace(/^https?:\/\//, '')}</a>
              {site.role && <span class="role">{site.role}</span>}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
