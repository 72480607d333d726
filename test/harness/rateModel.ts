/**
 * A model of one API key shared by pacers (queue-mode workers, each with its own Pacer) and
 * unpaced co-tenants, against a strict server (a fixed window, a sliding log or a token bucket)
 * that writes its rate-limit headers the ways real servers do: seconds until the reset (exact, or
 * whole seconds rounded down or up), epoch seconds (rounded up, or truncated) or milliseconds, an
 * epoch from a clock N seconds slow with or without a matching Date header, with or without
 * Retry-After. Simulated time, no timers: each client runs its items one at a time (as upserts and
 * sends do) through the same calls the transport makes, so a test reads what a deployment would
 * see without waiting for it; clients of one process (executions a worker runs at once) share its
 * pacer, which reads each answer when it arrives.
 */
import {
	parseRateLimitHeaders,
	parseRetryAfter,
} from '../../nodes/MessagingCrm/transport/rateHeaders';
import type { Refusal } from '../../nodes/MessagingCrm/transport/rateLimit';
import { Pacer } from '../../nodes/MessagingCrm/transport/rateLimit';
import { prng } from './prng';

export type ResetForm =
	| 'exact'
	| 'floor'
	| 'ceil'
	| 'epoch'
	| 'epoch-floor'
	| 'epoch-ms'
	/** An epoch ten years ahead: a reset that makes no sense. */
	| 'far';

/**
 * How the server counts: a fixed window that starts at the first request after the last one ended
 * (the sandbox's); a sliding log (a slot frees when the request that took it is a window old,
 * Remaining grows one at a time, the reset names the next free slot); a token bucket (holds
 * `limit`, refills `limit` per window evenly, the reset names the next token, now when full).
 */
export type Limiter = 'fixed' | 'sliding' | 'bucket';

export interface ServerModel {
	limit: number;
	windowMs: number;
	limiter?: Limiter;
	/** How X-RateLimit-Reset is written (default exact seconds until the reset, as the sandbox). */
	reset?: ResetForm;
	/** The server's clock is this many seconds behind the host's (epoch resets and Date follow it). */
	clockBehindS?: number;
	/** Date header: the server's own clock (default), the host's, or none. */
	date?: 'server' | 'host' | 'none';
	/** Retry-After on a 429 (default true). */
	retryAfter?: boolean;
	/** One-way latency (ms). */
	latencyMs?: number;
	/**
	 * Each way of a pacer's request takes up to this much longer, at random (a fixed seed): processes
	 * that wait for the CPU, as eight on two cores do (fixed windows, or one client). The server
	 * answers requests in the order they arrive, so one sent later may be counted first.
	 */
	jitterMs?: number;
	/** For this long from the start, every request is refused with a reset of 0 s (a limiter stuck, or counting in another region). */
	refuseForMs?: number;
	/**
	 * The key was spent by another client before the run: the window it is in ends this long after
	 * the start (first contact is a 429 that announces that reset).
	 */
	spentUntilMs?: number;
}

export interface ClientModel {
	items: number;
	/** Share of the Rate Limit, 0 to 1. */
	share?: number;
	/** Starts this late (ms). */
	startMs?: number;
	/**
	 * Item loops with the same process share one pacer (executions running at once on one
	 * queue-mode worker); by default each loop is its own process.
	 */
	process?: number;
}

export interface ModelResult {
	/** Per pacer: items done, items lost (gave up on 429), time of the last answer. */
	clients: Array<{ done: number; lost: number; first: number; last: number }>;
	/** Every request that reached the server: when, who (-1: a co-tenant), accepted, in which of its windows. */
	log: Array<{ at: number; client: number; ok: boolean; window: number }>;
	cotenant: { sent: number; refused: number };
}

/** Headers as the server writes them for a request arriving at `t` (host clock). */
function headersAt(
	server: Required<ServerModel>,
	t: number,
	resetAt: number,
	remaining: number,
	refused: boolean,
): Record<string, string> {
	const behind = server.clockBehindS * 1000;
	const untilS = (resetAt - t) / 1000;
	const serverReset = (resetAt - behind) / 1000;
	const reset = {
		exact: untilS.toFixed(3),
		floor: String(Math.floor(untilS)),
		ceil: String(Math.ceil(untilS)),
		epoch: String(Math.ceil(serverReset)),
		'epoch-floor': String(Math.floor(serverReset)),
		'epoch-ms': String(Math.round(resetAt - behind)),
		far: String(Math.ceil(serverReset) + 10 * 365 * 86_400),
	}[server.reset];
	const headers: Record<string, string> = {
		'x-ratelimit-limit': String(server.limit),
		'x-ratelimit-remaining': String(remaining),
		'x-ratelimit-reset': reset,
	};
	if (server.date !== 'none') {
		const clock = server.date === 'server' ? t - behind : t;
		headers.date = new Date(Math.floor(clock / 1000) * 1000).toUTCString();
	}
	if (refused && server.retryAfter) {
		headers['retry-after'] = String(Math.max(1, Math.ceil(untilS)));
	}
	return headers;
}

interface Count {
	ok: boolean;
	/** The fixed window's index; for a sliding log or bucket, the window-long slice of time since the start. */
	window: number;
	/** When the window ends, or the next slot or token frees (host clock). */
	resetAt: number;
	remaining: number;
}

/** The server's counter for one key: takes a request arriving at `t` or refuses it. */
function counter(
	server: Required<ServerModel>,
	t0: number,
): ((t: number) => Count) & { windowEnd?: () => number | undefined } {
	const { limit, windowMs } = server;
	const slice = (t: number) => Math.floor((t - t0) / windowMs);
	if (server.limiter === 'sliding') {
		const taken: number[] = [];
		return (t) => {
			while (taken.length && taken[0] <= t - windowMs) taken.shift();
			const ok = taken.length < limit;
			if (ok) taken.push(t);
			const resetAt = taken.length ? taken[0] + windowMs : t;
			return { ok, window: slice(t), resetAt, remaining: limit - taken.length };
		};
	}
	if (server.limiter === 'bucket') {
		let tokens = limit;
		let at = t0;
		const perMs = limit / windowMs;
		return (t) => {
			tokens = Math.min(limit, tokens + (t - at) * perMs);
			at = t;
			const ok = tokens >= 1;
			if (ok) tokens -= 1;
			// The next token, as a sliding log names its next free slot (now when full).
			const next = tokens >= limit ? 0 : (Math.floor(tokens) + 1 - tokens) / perMs;
			const resetAt = t + Math.ceil(next);
			return { ok, window: slice(t), resetAt, remaining: Math.floor(tokens) };
		};
	}
	// A key spent before the run: a full window that ends `spentUntilMs` after the start.
	let windowStart: number | undefined = server.spentUntilMs
		? t0 + server.spentUntilMs - windowMs
		: undefined;
	let index = server.spentUntilMs ? 0 : -1;
	let count = server.spentUntilMs ? limit : 0;
	const take = (t: number): Count => {
		if (windowStart === undefined || t >= windowStart + windowMs) {
			windowStart = t;
			index++;
			count = 0;
		}
		const ok = count < limit;
		if (ok) count++;
		return { ok, window: index, resetAt: windowStart + windowMs, remaining: limit - count };
	};
	return Object.assign(take, {
		windowEnd: () => (windowStart === undefined ? undefined : windowStart + windowMs),
	});
}

/**
 * Runs `clients` pacers (each its own process) and co-tenants sending `cotenantPerWindow`
 * requests per window, evenly (from `cotenantBusierAt` on, `cotenantBusier`), until every pacer is
 * done or `untilMs` of simulated time.
 * `cotenantInProcess` (one pacer): the co-tenant shares the pacer's event loop (another workflow
 * in the same n8n process): while the pacer sends back to back, its timer cannot fire, so it sends
 * fewer requests, later, while the pacer bursts. A worst case: Node runs timers that are due while
 * it waits for an answer, but the node's work per item (n8n's engine, the key's hash) holds the
 * loop, as the benchmark's co-tenant shows (it sends nothing while the node bursts).
 * `cotenantAwaits`: the co-tenant sleeps its step after each answer (a loop that awaits its
 * request, as the benchmark's does), so it sends a little less than `cotenantPerWindow` per
 * window, and its requests drift across the windows' edges: some windows hold one more than the last.
 */
export function runModel(
	model: ServerModel,
	clients: ClientModel[],
	options: {
		cotenantPerWindow?: number;
		cotenantBusierAt?: number;
		cotenantBusier?: number;
		cotenantInProcess?: boolean;
		cotenantAwaits?: boolean;
		/** The co-tenant starts this late (ms; default at the start). */
		cotenantStartMs?: number;
		/** The co-tenant sends nothing from this time on (ms). */
		cotenantStopMs?: number;
		/**
		 * The co-tenant sends its `cotenantPerWindow` all at once, every window, this long after its
		 * start (a cron job), instead of spreading them.
		 */
		cotenantBurstAtMs?: number;
		/** The co-tenant sends one request at its start (it shows itself before its first burst). */
		cotenantStartup?: boolean;
		/**
		 * The co-tenant's first request reaches the server this much later than the others would (a
		 * new connection, as the benchmark's co-tenant shows: 2 to 20 ms), so the server's windows
		 * begin that much after its schedule's and a burst at its cycle's start lands partly or
		 * wholly before the reset; and a burst's requests arrive a quarter of a millisecond apart.
		 */
		cotenantFirstLateMs?: number;
		/**
		 * The co-tenant sends its `cotenantPerWindow` at moments drawn at random (this seed) in each
		 * of the server's windows (a fixed window; otherwise each window-long cycle from its start),
		 * instead of spreading them or sending them at once.
		 */
		cotenantRandomSeed?: number;
		/** The seed of the answers' jitter (ServerModel.jitterMs). */
		jitterSeed?: number;
		/**
		 * A pacer told to wait asks again up to this much later, at random (seed `jitterSeed`): a
		 * busy machine's timers fire late.
		 */
		wakeLateMs?: number;
		untilMs?: number;
		startAt?: number;
	} = {},
): ModelResult {
	const server: Required<ServerModel> = {
		reset: 'exact',
		clockBehindS: 0,
		date: 'server',
		retryAfter: true,
		latencyMs: 5,
		jitterMs: 0,
		refuseForMs: 0,
		spentUntilMs: 0,
		limiter: 'fixed',
		...model,
	};
	// An arbitrary host time, not on a second boundary, so that rounding shows.
	const t0 = options.startAt ?? 1_800_000_000_337;
	const end = t0 + (options.untilMs ?? 3_600_000);
	const count = counter(server, t0);
	const log: ModelResult['log'] = [];
	const answer = (t: number, client: number) => {
		if (t < t0 + server.refuseForMs) {
			log.push({ at: t - t0, client, ok: false, window: -1 });
			return { ok: false, headers: headersAt(server, t, t, 0, true) };
		}
		const { ok, window, resetAt, remaining } = count(t);
		log.push({ at: t - t0, client, ok, window });
		return { ok, headers: headersAt(server, t, resetAt, remaining, !ok) };
	};
	const lat = server.latencyMs;
	if (server.jitterMs > 0 && server.limiter !== 'fixed' && clients.length > 1) {
		throw new Error('jitterMs is modelled with fixed windows or one client only');
	}
	let seed = options.jitterSeed ?? 12345;
	const draw = (most: number) => {
		seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
		return (seed / 2 ** 31) * most;
	};
	const jitter = () => (server.jitterMs > 0 ? draw(server.jitterMs) : 0);
	const wakeLate = options.wakeLateMs ?? 0;
	const processes = new Map<number, Pacer>();
	const pacerOf = (c: ClientModel, i: number) => {
		const id = c.process ?? -1 - i;
		if (!processes.has(id)) processes.set(id, new Pacer());
		return processes.get(id) as Pacer;
	};
	const workers = clients.map((c, i) => ({
		pacer: pacerOf(c, i),
		share: c.share ?? 1,
		left: c.items,
		at: t0 + (c.startMs ?? 0),
		refusedSince: undefined as number | undefined,
		/** Answered at this time and not yet asked for the next slot (it may send again at once). */
		answeredAt: undefined as number | undefined,
		/** A request out: it reaches the server at `arrivesAt`, which answers it then. */
		arrivesAt: undefined as number | undefined,
		/** A request out: its answer, read at `at`. */
		pending: undefined as { ok: boolean; headers: Record<string, string> } | undefined,
		result: { done: 0, lost: 0, first: NaN, last: NaN },
	}));
	const cotenant = { sent: 0, refused: 0 };
	const every = options.cotenantPerWindow ? server.windowMs / options.cotenantPerWindow : Infinity;
	const busier = options.cotenantBusier ? server.windowMs / options.cotenantBusier : every;
	const cotenantStart = t0 + (options.cotenantStartMs ?? 0);
	const cotenantStop = t0 + (options.cotenantStopMs ?? Infinity);
	const burstAt = options.cotenantBurstAtMs;
	let burstSent = 0;
	let startup = options.cotenantStartup === true;
	let cotenantAt = Number.isFinite(every) ? cotenantStart : Infinity;
	if (burstAt !== undefined && !startup) cotenantAt += burstAt;
	// At random moments: each cycle's moments drawn when it begins, sent in order.
	const random =
		options.cotenantRandomSeed === undefined ? undefined : prng(options.cotenantRandomSeed);
	let moments: number[] = [];
	let cycle = 0;
	const drawCycle = () => {
		// Each of the server's windows (a fixed window: from where the current one ends).
		const end = count.windowEnd?.();
		const own = cotenantStart + cycle++ * server.windowMs;
		const base = cycle > 1 && end !== undefined ? Math.max(end, cotenantAt) : own;
		const n = options.cotenantPerWindow ?? 0;
		moments = Array.from({ length: n }, () => base + (random as () => number)() * server.windowMs);
		moments.sort((a, b) => b - a);
	};
	if (random && Number.isFinite(cotenantAt)) {
		drawCycle();
		cotenantAt = moments.pop() as number;
	}
	/** The co-tenant's next request after the one at `cotenantAt`. */
	const nextCotenant = () => {
		if (random) {
			while (!moments.length) drawCycle();
			cotenantAt = moments.pop() as number;
		} else if (burstAt === undefined) {
			cotenantAt += cotenantAt - t0 >= (options.cotenantBusierAt ?? Infinity) ? busier : every;
			if (options.cotenantAwaits) cotenantAt += 2 * lat;
		} else if (startup) {
			startup = false;
			cotenantAt = cotenantStart + burstAt;
		} else if (++burstSent >= (options.cotenantPerWindow ?? 0)) {
			burstSent = 0;
			cotenantAt += server.windowMs;
		}
		if (cotenantAt >= cotenantStop) cotenantAt = Infinity;
	};
	const busy = () => workers.some((w) => w.left > 0);
	// The co-tenant's last arrival: its requests reach the server in the order it sends them.
	let cotenantLast = -Infinity;
	const firstLate = options.cotenantFirstLateMs ?? 0;
	/** How much later than its schedule the co-tenant's next request reaches the server. */
	const lateBy = () => {
		if (firstLate === 0) return 0;
		if (cotenant.sent === 0) return firstLate;
		return burstAt !== undefined && !startup ? burstSent * 0.25 : 0;
	};
	for (;;) {
		const next = workers
			.filter((w) => w.left > 0)
			.reduce<(typeof workers)[number] | undefined>(
				(a, w) => (!a || w.at < a.at ? w : a),
				undefined,
			);
		// The server answers requests in the order they reach it, whoever sent them.
		const arriving = workers
			.filter((w) => w.arrivesAt !== undefined)
			.reduce<(typeof workers)[number] | undefined>(
				(a, w) => (!a || (w.arrivesAt as number) < (a.arrivesAt as number) ? w : a),
				undefined,
			);
		const cotenantArrives = busy() ? Math.max(cotenantLast, cotenantAt + lat + lateBy()) : Infinity;
		const nextAt = Math.min(next?.at ?? Infinity, cotenantArrives - lat);
		if (!Number.isFinite(nextAt) || nextAt >= end) break;
		// In one event loop, a pacer that has just been answered asks for its next slot first.
		const sendingOn =
			options.cotenantInProcess && next !== undefined && next.at === next.answeredAt;
		// An in-process co-tenant held back so arrives after the requests already on their way.
		const cotenantDue = sendingOn ? Infinity : cotenantArrives;
		if (arriving && (arriving.arrivesAt as number) < Math.min(cotenantDue, next?.at ?? Infinity)) {
			arriving.pending = answer(arriving.arrivesAt as number, workers.indexOf(arriving));
			arriving.arrivesAt = undefined;
			continue;
		}
		if (cotenantAt <= (next?.at ?? Infinity) && !sendingOn) {
			const { ok } = answer(cotenantArrives, -1);
			cotenantLast = cotenantArrives;
			cotenant.sent++;
			if (!ok) cotenant.refused++;
			nextCotenant();
			continue;
		}
		const w = next as (typeof workers)[number];
		const pending = w.pending;
		if (pending) {
			// The answer arrives: the pacer reads it (another loop of its process may have asked meanwhile).
			w.pending = undefined;
			w.answeredAt = w.at;
			const now = w.at;
			const reading = parseRateLimitHeaders(pending.headers, now);
			const refused: Refusal | undefined = pending.ok
				? undefined
				: { retryAfterMs: parseRetryAfter(pending.headers, now, w.pacer.serverClockOffset) };
			w.pacer.observe(reading, now, refused);
			if (pending.ok) {
				w.left--;
				w.result.done++;
				w.result.last = now - t0;
				w.refusedSince = undefined;
				continue;
			}
			w.refusedSince ??= now;
			if (w.pacer.mayRetry(w.refusedSince, now)) continue;
			w.left--;
			w.result.lost++;
			w.refusedSince = undefined;
			continue;
		}
		const wait = w.pacer.reserve(w.at, w.share, w.left);
		w.answeredAt = undefined;
		if (wait > 0) {
			// The loop is free: a co-tenant's timer that was due fires now.
			if (options.cotenantInProcess) cotenantAt = Math.max(cotenantAt, w.at);
			w.at += wait + (wakeLate > 0 ? draw(wakeLate) : 0);
			continue;
		}
		if (Number.isNaN(w.result.first)) w.result.first = w.at - t0;
		// The server answers it when it arrives (see `arriving`); the answer is read when it comes back.
		const there = w.at + lat + jitter();
		w.arrivesAt = there;
		w.at = there + lat + jitter();
		// An in-process co-tenant waits for it too (see cotenantInProcess).
		w.answeredAt = w.at;
	}
	// With jitter, requests reach the server out of the order they were sent in: the log is the server's.
	log.sort((a, b) => a.at - b.at);
	return { clients: workers.map((w) => w.result), log, cotenant };
}

/** One client of `n` items, started at once. */
export const items = (n: number): ClientModel[] => [{ items: n }];

/** Items given up on 429, over all pacers. */
export const lost = (r: ModelResult): number => r.clients.reduce((a, c) => a + c.lost, 0);

/** Requests answered 429 on the wire. */
export const refused = (r: ModelResult): number => r.log.filter((e) => !e.ok).length;

/** The least of some figures; none is an error, not `Infinity` (which passes any lower bound). */
export function least(xs: number[]): number {
	if (xs.length === 0) throw new Error('No figures to judge: the run had no whole window');
	return Math.min(...xs);
}

/** The most of some figures; none is an error, not `-Infinity` (which passes any upper bound). */
export function most(xs: number[]): number {
	if (xs.length === 0) throw new Error('No figures to judge: the run had no whole window');
	return Math.max(...xs);
}

/**
 * How far some windows fell short of the limit, added up: the node's processes, which take one
 * another for other clients, may lose one window's worth in all (docs/pacer.md).
 */
export const shortfall = (windows: number[], limit: number): number =>
	windows.reduce((a, n) => a + Math.max(0, limit - n), 0);

/** Accepted requests in each of the server's windows but the last (cut by the run's end); of one client, or all. */
export function perWindow(log: ModelResult['log'], client?: number): number[] {
	if (log.length === 0) return [];
	const last = log[log.length - 1].window;
	const counts = Array.from({ length: last }, () => 0);
	for (const r of log) {
		if (r.ok && r.window >= 0 && r.window < last && (client === undefined || r.client === client))
			counts[r.window]++;
	}
	return counts;
}
