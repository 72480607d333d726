/** An API error as the sandbox answers it: the spec's envelope {error: {code, message, details}}. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details: Record<string, unknown> = {},
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	toBody() {
		return { error: { code: this.code, message: this.message, details: this.details } };
	}
}

export const validation = (message: string, details: Record<string, unknown> = {}) =>
	new ApiError(422, 'validation_error', message, details);

export const notFound = (what: string, id: string) =>
	new ApiError(404, 'not_found', `${what} ${id} was not found`, { resource: what, id });
