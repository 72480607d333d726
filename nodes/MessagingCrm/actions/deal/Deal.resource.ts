/**
 * The deal operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as close from './close.operation';
export * as create from './create.operation';
export * as getMany from './getMany.operation';
export * as moveStage from './moveStage.operation';
