/* eslint-disable @n8n/community-nodes/no-restricted-imports -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/**
 * Misbehaviour on purpose: faults injected for the next requests to a path, and seeded random
 * chaos. The pipeline asks `take` for each API request and `applyFault` answers for a fault.
 */
import type { IncomingMessage, ServerResponse } from 'http';

import { prng } from '../harness/prng';
import { sendJson } from './http';

export type FaultKind = 'status' | 'html' | 'reset' | 'delay' | 'malformed' | 'echo';

export interface FaultSpec {
	/** Exact path, or a prefix ending in `*`. */
	path: string;
	method?: string;
	/** How many matching requests it hits. */
	count: number;
	/** Matching requests to let through untouched first (the fault then hits the next `count`). */
	skip?: number;
	kind: FaultKind;
	/** `before`: the request is not processed. `after`: processed, then the answer is lost or spoiled. */
	when?: 'before' | 'after';
	status?: number;
	body?: unknown;
	headers?: Record<string, string>;
	delayMs?: number;
	/**
	 * For `echo`: how the request's headers (the API key among them) come back, as a misconfigured
	 * proxy or a debug page would print them: in the envelope's message and details, or as a
	 * plain-text page. Either way a response header repeats the Authorization value.
	 */
	format?: 'envelope' | 'text';
}

/** Random faults on a share of requests, from a seeded generator (benchmarks, chaos tests). */
export interface ChaosConfig {
	seed: number;
	/** Share of requests answered with an HTML 502 page before processing. */
	p502?: number;
	/** Share of requests whose connection is reset (half before, half after processing). */
	pReset?: number;
	/** Share of requests answered 503 (envelope) before processing. */
	p503?: number;
	/** Share of requests refused with 429 and Retry-After. */
	p429?: number;
	/** The Retry-After of those 429s, in seconds (default 1). */
	retryAfter?: string;
	/** A Retry-After (seconds) on the injected 502 pages and 503s too, as a server may send one. */
	retryAfter5xx?: string;
	/** Share of requests answered only after `slowMs` (past a client's timeout, the work still done). */
	pSlow?: number;
	slowMs?: number;
	/** Share of requests processed and then answered with a truncated JSON body. */
	pMalformed?: number;
	/** Only paths starting with this. */
	pathPrefix?: string;
}

export class FaultPlan {
	private faults: Array<FaultSpec & { left: number; skipLeft: number }> = [];

	private chaos: (ChaosConfig & { next: () => number }) | null = null;

	inject(fault: FaultSpec): void {
		this.faults.push({ ...fault, left: fault.count, skipLeft: fault.skip ?? 0 });
	}

	clear(): void {
		this.faults = [];
		this.chaos = null;
	}

	setChaos(config: ChaosConfig | null): void {
		if (!config) {
			this.chaos = null;
			return;
		}
		this.chaos = { ...config, next: prng(config.seed) };
	}

	/** A fault drawn by the chaos generator for this request, if any. */
	private chaosFault(path: string): FaultSpec | undefined {
		const c = this.chaos;
		if (!c || (c.pathPrefix && !path.startsWith(c.pathPrefix))) return undefined;
		let r = c.next();
		const hit = (p = 0) => {
			if (r < p) return true;
			r -= p;
			return false;
		};
		const later = c.retryAfter5xx === undefined ? undefined : { 'Retry-After': c.retryAfter5xx };
		if (hit(c.p502)) return { path, count: 1, kind: 'html', status: 502, headers: later };
		if (hit(c.p503))
			return {
				path,
				count: 1,
				kind: 'status',
				status: 503,
				headers: later,
				body: { error: { code: 'unavailable', message: 'Injected 503', details: {} } },
			};
		if (hit(c.pReset))
			return { path, count: 1, kind: 'reset', when: c.next() < 0.5 ? 'before' : 'after' };
		if (hit(c.p429)) {
			return {
				path,
				count: 1,
				kind: 'status',
				status: 429,
				headers: { 'Retry-After': c.retryAfter ?? '1' },
				body: { error: { code: 'rate_limited', message: 'Injected rate limit', details: {} } },
			};
		}
		if (hit(c.pSlow))
			return { path, count: 1, kind: 'delay', when: 'after', delayMs: c.slowMs ?? 5000 };
		if (hit(c.pMalformed)) return { path, count: 1, kind: 'malformed', when: 'after' };
		return undefined;
	}

	/** The fault for this request, if any: an injected one first, else one drawn by the chaos generator. */
	take(method: string, path: string): FaultSpec | undefined {
		return this.takeInjected(method, path) ?? this.chaosFault(path);
	}

	private takeInjected(method: string, path: string): (FaultSpec & { left: number }) | undefined {
		const fault = this.faults.find(
			(f) =>
				f.left > 0 &&
				(!f.method || f.method.toUpperCase() === method) &&
				(f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : f.path === path),
		);
		if (fault && fault.skipLeft > 0) {
			fault.skipLeft--;
			return undefined;
		}
		if (fault) {
			fault.left--;
			if (fault.left === 0) this.faults = this.faults.filter((f) => f !== fault);
		}
		return fault;
	}
}

/** Answers a request as the fault says (or destroys its connection). */
export function applyFault(req: IncomingMessage, res: ServerResponse, fault: FaultSpec): void {
	switch (fault.kind) {
		case 'echo': {
			const auth = String(req.headers.authorization ?? '');
			const key = auth.replace(/^Bearer\s+/i, '');
			const dump = JSON.stringify(req.headers);
			const status = fault.status ?? 500;
			const headers = { 'X-Debug-Authorization': auth, ...fault.headers };
			if (fault.format === 'text') {
				res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
				res.end(
					`Upstream failed for key ${key}. Request headers: ${dump}\nAuthorization: ${auth}\n`,
				);
				return;
			}
			sendJson(
				res,
				status,
				{
					error: {
						code: status >= 500 ? 'internal_error' : 'bad_request',
						message: `Upstream failed (key ${key}). Request headers: ${dump}`,
						details: {
							headers: req.headers,
							authorization: auth,
							key,
							url: `${req.url ?? ''}?token=${encodeURIComponent(key)}`,
							provider_error: `Bearer ${key} rejected upstream`,
						},
					},
				},
				headers,
			);
			return;
		}
		case 'reset':
			res.socket?.destroy();
			return;
		case 'html':
			res.writeHead(fault.status ?? 502, { 'Content-Type': 'text/html', ...fault.headers });
			res.end(
				'<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
			);
			return;
		case 'malformed':
			res.writeHead(fault.status ?? 200, { 'Content-Type': 'application/json', ...fault.headers });
			res.end('{"truncated": ');
			return;
		default:
			sendJson(
				res,
				fault.status ?? 502,
				fault.body ?? { error: { code: 'injected', message: 'Injected fault', details: {} } },
				fault.headers,
			);
	}
}
