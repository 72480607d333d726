/**
 * The promoCode operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as upload from './upload.operation';
export * as revoke from './revoke.operation';
export * as getMany from './getMany.operation';
export * as findOwner from './findOwner.operation';
