/**
 * The variable operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as get from './get.operation';
export * as set from './set.operation';
