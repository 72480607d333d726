/**
 * The customer operations: one line each. The module is the resource's operations object (see
 * ../resources.ts). Adding an endpoint is an operation file, one line here, a sandbox route and a
 * row in each operations table: docs/architecture.md, "Worked example: adding an endpoint".
 */
export * as upsert from './upsert.operation';
export * as find from './find.operation';
export * as get from './get.operation';
export * as getMessengers from './getMessengers.operation';
export * as merge from './merge.operation';
