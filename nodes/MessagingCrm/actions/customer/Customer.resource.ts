/**
 * The customer operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as upsert from './upsert.operation';
export * as find from './find.operation';
export * as get from './get.operation';
export * as getMessengers from './getMessengers.operation';
export * as merge from './merge.operation';
