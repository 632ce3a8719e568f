// A composition of the collection bench: `npm start`'s single process (every
// service, embedded stores, local journal) with its ingest service stopped once
// started, so collection has the event loop to itself and accepted events wait in
// EVENTS_WQ. Run as its own process; prints the launcher's ready line.
import { loadConfig } from '@sightline/config';
import { startSightline } from '@sightline/launcher';
import { createLogger } from '@sightline/telemetry';

const config = loadConfig();
const running = await startSightline({ config, log: createLogger({ level: config.LOG_LEVEL }), target: 'all' });
// taken out of the list `stop` walks, so it is stopped once
const [ingest] = running.services.splice(
  running.services.findIndex((service) => service.name === 'ingest'),
  1,
);
await ingest!.stop(0);
console.log(`\nSightline is running at ${running.url}  (ingest stopped)\n`);
process.once('SIGTERM', () => {
  void running.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
