import { isoNow } from '../crm';
import type { Route } from '../server';
import type { Store, VariableRow } from '../store';
import { patchVariables, variablesOut } from '../variablesContract';

/**
 * GET and PATCH `<record>/variables`: the customer's and the deal's are one contract (api-spec),
 * so one pair of routes, given where the record's variables live.
 */
export function variableRoutes(
	path: string,
	param: string,
	variablesOf: (store: Store, id: string) => Map<string, VariableRow>,
): Route[] {
	return [
		{
			method: 'GET',
			path: `${path}/variables`,
			scope: 'customers:read',
			uuidParams: [param],
			handler: ({ store, params }) => ({
				status: 200,
				body: variablesOut(variablesOf(store, params[param])),
			}),
		},
		{
			method: 'PATCH',
			path: `${path}/variables`,
			scope: 'customers:write',
			uuidParams: [param],
			handler: ({ store, params, body, sandbox }) => {
				const variables = variablesOf(store, params[param]);
				patchVariables(variables, body, isoNow(sandbox.now()));
				return { status: 200, body: variablesOut(variables) };
			},
		},
	];
}
