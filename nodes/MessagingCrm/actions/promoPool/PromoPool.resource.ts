/**
 * The promoPool operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as getMany from './getMany.operation';
export * as get from './get.operation';
export * as update from './update.operation';
