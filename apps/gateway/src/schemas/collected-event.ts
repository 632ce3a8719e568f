export { TrackerPayload } from '@sightline/events-schema';
