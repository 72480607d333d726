/**
 * The variables contract of PATCH .../variables (api-spec), shared by customers and deals:
 * patch by name, short or full form, types never guessed from content, day.month.year dates
 * stored as ISO, lists with replace/append/remove, null deletes, {value: null} clears.
 */
import { ApiError, validation } from './errors';
import type { VariableRow } from './store';

export const VARIABLE_TYPES = [
	'text',
	'select',
	'datetime',
	'number',
	'date',
	'time',
	'phone',
	'email',
];
export const MAX_VARIABLES_PER_CALL = 50;

type Scalar = string | number | boolean | null;

function reject(name: string, message: string): ApiError {
	return validation(`Variable "${name}": ${message}`, {
		variable: name,
		field: `variables.${name}`,
	});
}

export function normalizePhone(raw: string): string | null {
	const trimmed = raw.trim();
	let digits = trimmed.replace(/[\s\-().]/g, '');
	if (digits.startsWith('00')) digits = `+${digits.slice(2)}`;
	if (!digits.startsWith('+')) digits = `+${digits}`;
	return /^\+[1-9]\d{6,14}$/.test(digits) ? digits : null;
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function pad(n: number): string {
	return String(n).padStart(2, '0');
}

function validDate(y: number, m: number, d: number): boolean {
	const date = new Date(Date.UTC(y, m - 1, d));
	return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Canonicalises one element for its type, or throws a 422 naming the variable. */
export function canonical(name: string, type: string, value: Scalar): Scalar {
	if (value === null) return null;
	switch (type) {
		case 'text':
		case 'select':
			if (typeof value === 'boolean' || typeof value === 'number') return String(value);
			return value;
		case 'number': {
			const n =
				typeof value === 'number'
					? value
					: typeof value === 'string' && value.trim() !== ''
						? Number(value.replace(',', '.'))
						: NaN;
			if (!Number.isFinite(n)) throw reject(name, `${JSON.stringify(value)} is not a number`);
			return n;
		}
		case 'date': {
			const text = String(value).trim();
			let m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text);
			if (m && validDate(+m[3], +m[2], +m[1])) return `${m[3]}-${pad(+m[2])}-${pad(+m[1])}`;
			m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
			if (m && validDate(+m[1], +m[2], +m[3])) return text;
			throw reject(name, `${JSON.stringify(value)} is not a date (day.month.year or YYYY-MM-DD)`);
		}
		case 'datetime': {
			const text = String(value).trim();
			const m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:[ T](\d{1,2}):(\d{2}))?$/.exec(text);
			if (m && validDate(+m[3], +m[2], +m[1])) {
				return new Date(
					Date.UTC(+m[3], +m[2] - 1, +m[1], +(m[4] ?? 0), +(m[5] ?? 0)),
				).toISOString();
			}
			if (/^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text)))
				return new Date(text).toISOString();
			throw reject(name, `${JSON.stringify(value)} is not a date-time`);
		}
		case 'time': {
			const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(String(value).trim());
			if (m && +m[1] < 24 && +m[2] < 60) return `${pad(+m[1])}:${m[2]}`;
			throw reject(name, `${JSON.stringify(value)} is not a time (HH:MM)`);
		}
		case 'phone': {
			const phone = normalizePhone(String(value));
			if (!phone) throw reject(name, `${JSON.stringify(value)} is not a phone number`);
			return phone;
		}
		case 'email': {
			const email = String(value).trim().toLowerCase();
			if (!EMAIL.test(email))
				throw reject(name, `${JSON.stringify(value)} is not an email address`);
			return email;
		}
		default:
			throw reject(name, `unknown type "${type}"`);
	}
}

function jsonType(value: unknown): string {
	return typeof value === 'number' ? 'number' : 'text';
}

function isScalar(value: unknown): value is Scalar {
	return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function readable(list: unknown[]): string {
	return list.map((v) => String(v)).join(', ');
}

interface Write {
	value: unknown;
	type?: string;
	mode: 'replace' | 'append' | 'remove';
	full: boolean;
}

function parseWrite(name: string, raw: unknown): Write | 'delete' {
	if (raw === null) return 'delete';
	if (typeof raw === 'object' && !Array.isArray(raw)) {
		const { value, type, mode, ...rest } = raw as Record<string, unknown>;
		if (Object.keys(rest).length)
			throw reject(name, `unknown field(s) ${Object.keys(rest).join(', ')}`);
		if (type !== undefined && (typeof type !== 'string' || !VARIABLE_TYPES.includes(type))) {
			throw reject(name, `type must be one of ${VARIABLE_TYPES.join(', ')}`);
		}
		if (mode !== undefined && !['replace', 'append', 'remove'].includes(mode as string)) {
			throw reject(name, 'mode must be replace, append or remove');
		}
		return {
			value,
			type: type as string | undefined,
			mode: (mode as Write['mode']) ?? 'replace',
			full: true,
		};
	}
	return { value: raw, mode: 'replace', full: false };
}

/** Applies a PATCH to a variable map in place (all or nothing). */
export function patchVariables(
	current: Map<string, VariableRow>,
	body: unknown,
	now: string,
): void {
	if (typeof body !== 'object' || body === null || Array.isArray(body))
		throw validation('The body must be an object with "variables"', { field: 'variables' });
	const variables = (body as Record<string, unknown>).variables;
	if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
		throw validation('"variables" is required: an object from variable name to value', {
			field: 'variables',
		});
	}
	const entries = Object.entries(variables as Record<string, unknown>);
	if (entries.length > MAX_VARIABLES_PER_CALL) {
		throw validation(
			`At most ${MAX_VARIABLES_PER_CALL} variables per call, got ${entries.length}`,
			{ field: 'variables', count: entries.length },
		);
	}
	const next = new Map(current);
	for (const [name, raw] of entries) {
		if (!name.trim() || name.length > 100)
			throw reject(name, 'the name must be 1 to 100 characters');
		const write = parseWrite(name, raw);
		if (write === 'delete') {
			next.delete(name);
			continue;
		}
		const existing = next.get(name);
		const values = Array.isArray(write.value) ? write.value : [write.value];
		if (!values.every(isScalar))
			throw reject(name, 'a value must be a string, number, boolean, null or a list of those');
		const wantsList =
			Array.isArray(write.value) || write.mode !== 'replace' || (existing?.is_list ?? false);
		const type =
			write.type ?? existing?.type ?? jsonType(values.find((v) => v !== null && v !== undefined));
		if (write.full && write.value === null && write.mode === 'replace') {
			// {"value": null}: clear the value, keep the field.
			next.set(name, {
				name,
				type,
				is_list: existing?.is_list ?? false,
				value: null,
				value_list: existing?.is_list ? [] : null,
				group_name: existing?.group_name ?? null,
				updated_at: now,
			});
			continue;
		}
		if (write.type === undefined && !existing) {
			// One element type per list: a new list takes it from the JSON types, which must agree.
			const kinds = new Set(values.filter((v) => v !== null).map(jsonType));
			if (kinds.size > 1)
				throw reject(name, 'a list holds one element type; mixed numbers and strings were given');
		}
		const elements = values.map((v) => canonical(name, type, v as Scalar));
		if (!wantsList) {
			next.set(name, {
				name,
				type,
				is_list: false,
				value: elements[0],
				value_list: null,
				group_name: existing?.group_name ?? null,
				updated_at: now,
			});
			continue;
		}
		if (existing && !existing.is_list && write.mode !== 'replace') {
			throw reject(name, `is not a list; ${write.mode} works on list variables only`);
		}
		let list = write.mode === 'replace' ? [] : [...(existing?.value_list ?? [])];
		const key = (v: unknown) => JSON.stringify(v);
		if (write.mode === 'remove') {
			const drop = new Set(elements.map(key));
			list = list.filter((v) => !drop.has(key(v)));
		} else {
			const seen = new Set(list.map(key));
			for (const element of elements) {
				if (element === null || seen.has(key(element))) continue;
				seen.add(key(element));
				list.push(element);
			}
		}
		next.set(name, {
			name,
			type,
			is_list: true,
			value: readable(list),
			value_list: list,
			group_name: existing?.group_name ?? null,
			updated_at: now,
		});
	}
	current.clear();
	for (const [k, v] of next) current.set(k, v);
}

export function variablesOut(vars: Map<string, VariableRow>) {
	return {
		variables: [...vars.values()].map((v) => ({
			...v,
			value_list: v.value_list ? [...v.value_list] : null,
		})),
	};
}
