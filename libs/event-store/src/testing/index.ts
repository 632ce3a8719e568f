/**
 * TEST SUPPORT entry point (`src/testing`): not part of the production API.
 * The ClickHouse-HTTP facade over chDB, for tests that want to exercise
 * ClickHouseEventStore (or any @clickhouse/client user) without a server.
 */
export { startChdbHttpServer, type ChdbHttpServer, type ChdbHttpServerOptions } from './chdb-http-server.js';
