/**
 * TEST SUPPORT entry point (`@sightline/bus/testing`): not part of the production API.
 * The Bus contract suite every adapter runs from its own test file, and its polling helpers.
 */
export { describeBusContract, deferred, sleep, waitFor, type BusContractOptions, type BusContractTarget } from './bus-contract.js';
