/**
 * The key is removed from whatever a server answers, however it appears; every check here is
 * first shown to catch the key when redaction is skipped.
 */
import fc from 'fast-check';

import { failureFromResponse } from '../../nodes/MessagingCrm/transport/errors';
import { REDACTED, redactor, secretVariants } from '../../nodes/MessagingCrm/transport/redact';
import { keyForms } from '../harness/engine';

const KEY = 'mcrm_live_Zx9/Q+w"e\\r=ty-0123456789';

/** Every form of the key that must never survive. */
const leaks = (text: string, key = KEY) => keyForms(key).some((form) => text.includes(form));

describe('redaction of the API key', () => {
	it('knows the forms a key takes in echoed text', () => {
		const forms = secretVariants(KEY);
		expect(forms).toEqual(
			expect.arrayContaining([KEY, JSON.stringify(KEY).slice(1, -1), encodeURIComponent(KEY)]),
		);
		// A key too short to search for safely is not searched for.
		expect(secretVariants('abc')).toEqual([]);
	});

	it.each([
		['bare', `key=${KEY}`],
		['after Bearer', `Authorization: Bearer ${KEY}`],
		['URL-encoded', `GET /x?token=${encodeURIComponent(KEY)}`],
		['URL-encoded, lower-case hex', `GET /x?token=${encodeURIComponent(KEY).toLowerCase()}`],
		['JSON-escaped', JSON.stringify({ headers: { authorization: `Bearer ${KEY}` } })],
		['JSON-escaped twice', JSON.stringify(JSON.stringify({ authorization: `Bearer ${KEY}` }))],
		['cut at the end', `... upstream said: Bearer ${KEY.slice(0, 14)}`],
		['cut at the start', `${KEY.slice(-12)} (truncated header dump)`],
	])('removes the key %s, with a visible marker', (_name, text) => {
		expect(leaks(text) || text.includes(KEY.slice(0, 12)) || text.includes(KEY.slice(-12))).toBe(
			true,
		);
		const clean = redactor(KEY).text(text, { headers: true });
		expect(leaks(clean)).toBe(false);
		expect(clean).not.toContain(KEY.slice(0, 12));
		expect(clean).not.toContain(KEY.slice(-12));
		expect(clean).toContain(REDACTED);
	});

	it('removes any echoed Authorization value, whatever key it holds, in error answers', () => {
		const other = 'sk_other_client_9f8e7d6c5b4a';
		const texts = [
			`authorization: Bearer ${other}`,
			`{"Authorization":"Basic ${other}"}`,
			JSON.stringify({ message: `headers: {"authorization": "${other}"}` }),
			`Authorization=${other}&x=1`,
			`proxy got bearer ${other} from the client`,
		];
		for (const text of texts) {
			expect(text).toContain(other);
			const clean = redactor(KEY).text(text, { headers: true });
			expect({ text, clean: clean.includes(other) }).toEqual({ text, clean: false });
			expect(clean).toContain(REDACTED);
		}
		// Data of a successful answer is left alone: only the key itself is removed there.
		expect(redactor(KEY).text('Authorization: pending review')).toBe(
			'Authorization: pending review',
		);
	});

	it('walks objects, arrays and keys of a JSON value and leaves other values as they are', () => {
		const value = { [KEY]: [1, null, true, { nested: `Bearer ${KEY}` }], n: 5 };
		const clean = redactor(KEY).value(value);
		expect(leaks(JSON.stringify(clean))).toBe(false);
		expect(clean).toEqual({ [REDACTED]: [1, null, true, { nested: `Bearer ${REDACTED}` }], n: 5 });
	});

	it('holds for any key in any surrounding text (property)', () => {
		const keyArb = fc.string({ minLength: 8, maxLength: 48 }).filter((k) => k.trim().length >= 8);
		fc.assert(
			fc.property(
				keyArb,
				fc.string({ maxLength: 40 }),
				fc.string({ maxLength: 40 }),
				fc.constantFrom<(k: string) => string>(
					(k) => k,
					(k) => `Bearer ${k}`,
					(k) => JSON.stringify(k).slice(1, -1),
					(k) => JSON.stringify(JSON.stringify(k)),
					(k) => encodeURIComponent(k),
				),
				(key, before, after, form) => {
					const text = `${before}${form(key)}${after}`;
					const clean = redactor(key).text(text, { headers: true });
					return !keyForms(key).some((f) => clean.includes(f));
				},
			),
			{ numRuns: 500, seed: 20261123 },
		);
	});

	it('an error page that prints the key is redacted before its snippet is cut, so no piece survives the cut', () => {
		// The key straddles character 157, where the snippet is cut.
		const page = `<html><body><pre>${'x'.repeat(140)} key=${KEY} more</pre></body></html>`;
		const failure = failureFromResponse(500, page, redactor(KEY));
		expect(failure.message).toContain('The API answered 500 without its usual envelope');
		expect(leaks(JSON.stringify(failure))).toBe(false);
		expect(failure.message).not.toContain(KEY.slice(0, 8));
		// Planted: without redaction, the same cut leaves a piece of the key in the message.
		const unredacted = failureFromResponse(500, page, redactor(''));
		expect(unredacted.message).toContain(KEY.slice(0, 8));
	});

	it('an envelope that echoes the request keeps its code and says what happened', () => {
		const body = {
			error: {
				code: 'internal_error',
				message: `Upstream failed. Request headers: {"authorization": "Bearer ${KEY}"}`,
				details: {
					headers: { Authorization: `Bearer ${KEY}` },
					raw: KEY,
					provider_error: `token ${encodeURIComponent(KEY)} rejected`,
				},
			},
		};
		const failure = failureFromResponse(500, body, redactor(KEY));
		expect(failure.code).toBe('internal_error');
		expect(failure.message).toMatch(/^Upstream failed\. Request headers: .*\[redacted\]/);
		expect(leaks(JSON.stringify(failure))).toBe(false);
		expect(leaks(JSON.stringify(failureFromResponse(500, body, redactor(''))))).toBe(true);
	});
});
