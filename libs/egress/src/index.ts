export { type AddressClass, classifyAddress } from './classifyAddress.ts';
export {
  type AddressPolicy,
  type AddressPolicyOptions,
  createAddressPolicy,
  networkProblem,
  nonPublicAddresses,
} from './createAddressPolicy.ts';
export { createGuardedFetch, type GuardedFetch, type GuardedFetchFactoryOptions } from './createGuardedFetch.ts';
export {
  EgressError,
  type EgressFailure,
  fetchGuarded,
  type GuardedFetchOptions,
  type GuardedResponse,
} from './fetchGuarded.ts';
export { urlHostProblem } from './urlHostProblem.ts';
