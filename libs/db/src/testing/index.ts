/**
 * TEST SUPPORT entry point (`@sightline/db/testing`): not part of the production API.
 * The Db contract suite every adapter runs from its own test file.
 */
export { describeDbContract, type DbContractTarget } from './db-contract.js';
