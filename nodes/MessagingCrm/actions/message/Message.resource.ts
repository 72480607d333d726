/**
 * The message operations: one line each. The module is the resource's operations object (see
 * ../resources.ts); adding an endpoint is one operation file and one line here.
 */
export * as send from './send.operation';
export * as sendAndWait from './sendAndWait.operation';
