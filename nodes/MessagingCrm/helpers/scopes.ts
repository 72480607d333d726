/** The scopes a company key can carry (api-spec: Authentication). */
export const SCOPES = [
	'agents:read',
	'customers:read',
	'customers:write',
	'pipelines:read',
	'promo:read',
	'promo:write',
	'templates:manage',
	'messages:send',
	'messages:template',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * What an operation needs: one scope, or a list of which any one is enough
 * (GET /bizchat/templates accepts `messages:template` or `agents:read`).
 */
export type ScopeRequirement = Scope | readonly Scope[];

export function scopeAlternatives(requirement: ScopeRequirement): readonly Scope[] {
	return typeof requirement === 'string' ? [requirement] : requirement;
}

export function describeScope(requirement: ScopeRequirement): string {
	return scopeAlternatives(requirement)
		.map((s) => `"${s}"`)
		.join(' or ');
}

/**
 * The scope hints configured on the credential, or null when the user left them empty
 * (then the API decides).
 */
export function configuredScopes(value: unknown): Set<string> | null {
	if (!Array.isArray(value) || value.length === 0) return null;
	return new Set(value.filter((v): v is string => typeof v === 'string'));
}

/** The scope of `requirement` that is missing from the configured hints, or null when satisfied. */
export function missingScope(
	requirement: ScopeRequirement,
	configured: Set<string> | null,
): ScopeRequirement | null {
	if (configured === null) return null;
	return scopeAlternatives(requirement).some((s) => configured.has(s)) ? null : requirement;
}

export function howToGetScope(requirement: ScopeRequirement): string {
	return `Mint a key that carries ${describeScope(requirement)} (company settings → API tab → new key), put it in the Messaging CRM API credential and add the scope to its "Scopes of This Key" list.`;
}
