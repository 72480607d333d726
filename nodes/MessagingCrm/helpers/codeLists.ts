/** Pure helpers for promo-code lists: reading them from text or CSV, cleaning, chunking. */

export const MAX_CODES_PER_UPLOAD = 10_000;

/** Splits text into codes: one per line (commas and semicolons also separate when `separators`). */
export function codesFromText(text: string, separators = false): string[] {
	const parts = text.replace(/^\uFEFF/, '').split(separators ? /[\r\n,;]+/ : /\r?\n|\r/);
	return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** Codes from a mapped value: an array (of strings or numbers) or a text. Null when unusable. */
export function codesFromValue(value: unknown): string[] | null {
	if (typeof value === 'string') return codesFromText(value, true);
	if (typeof value === 'number') return [String(value)];
	if (Array.isArray(value)) {
		const out: string[] = [];
		for (const v of value) {
			if (typeof v === 'string' || typeof v === 'number') {
				const code = String(v).trim();
				if (code) out.push(code);
			} else if (v !== null && v !== undefined) return null;
		}
		return out;
	}
	return null;
}

function detectDelimiter(headerLine: string): string {
	const counts = [',', ';', '\t', '|'].map((d) => [d, headerLine.split(d).length - 1] as const);
	counts.sort((a, b) => b[1] - a[1]);
	return counts[0][1] > 0 ? counts[0][0] : ',';
}

/** Parses CSV (quoted fields, doubled quotes, CRLF) into rows of fields. */
export function parseCsv(text: string, delimiter?: string): string[][] {
	const input = text.replace(/^\uFEFF/, '');
	const firstLine = input.slice(
		0,
		input.search(/\r?\n/) === -1 ? input.length : input.search(/\r?\n/),
	);
	const d = delimiter || detectDelimiter(firstLine);
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < input.length; i++) {
		const c = input[i];
		if (quoted) {
			if (c === '"') {
				if (input[i + 1] === '"') {
					field += '"';
					i++;
				} else quoted = false;
			} else field += c;
			continue;
		}
		if (c === '"' && field === '') quoted = true;
		else if (c === d) {
			row.push(field);
			field = '';
		} else if (c === '\n' || c === '\r') {
			if (c === '\r' && input[i + 1] === '\n') i++;
			row.push(field);
			rows.push(row);
			row = [];
			field = '';
		} else field += c;
	}
	if (field !== '' || row.length) {
		row.push(field);
		rows.push(row);
	}
	return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

export type CsvColumn = { header: true; column: string } | { header: false; index: number };

/** The codes of one CSV column, by header name (case-insensitive) or 1-based position. */
export function codesFromCsv(
	text: string,
	column: CsvColumn,
	delimiter?: string,
): { codes: string[] } | { missing: string[] } {
	const rows = parseCsv(text, delimiter);
	if (rows.length === 0) return { codes: [] };
	let index: number;
	let body = rows;
	if (column.header) {
		const headers = rows[0].map((h) => h.trim());
		index = headers.findIndex((h) => h.toLowerCase() === column.column.trim().toLowerCase());
		if (index === -1) return { missing: headers };
		body = rows.slice(1);
	} else {
		index = column.index - 1;
		const width = Math.max(...rows.map((r) => r.length));
		if (index < 0 || index >= width)
			return { missing: Array.from({ length: width }, (_, i) => String(i + 1)) };
	}
	return { codes: body.map((r) => (r[index] ?? '').trim()).filter((c) => c !== '') };
}

/** Removes repeats, keeping the first occurrence's order; counts what was removed. */
export function dedupe(codes: string[]): { unique: string[]; duplicates: number } {
	const seen = new Set<string>();
	const unique: string[] = [];
	for (const code of codes) {
		if (seen.has(code)) continue;
		seen.add(code);
		unique.push(code);
	}
	return { unique, duplicates: codes.length - unique.length };
}

/** True when a buffer looks like text (no NUL bytes, valid UTF-8). */
export function looksLikeText(buffer: Buffer): boolean {
	if (buffer.includes(0)) return false;
	return !buffer.toString('utf8').includes('\uFFFD');
}
