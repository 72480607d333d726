/**
 * Pacing under the API's rate limit: what the pacer decides (send now, wait, probe a reset) from
 * what it believes about the server (its window, its clock, where its resets really fall) and
 * about the key's other clients (rateOthers.ts). Pure bookkeeping: the caller passes the clock in
 * and does the sleeping, so the logic is tested without timers.
 */
import type { RateLimitReading } from './rateHeaders';
import { MAX_RESET_AHEAD_MS } from './rateHeaders';
import { Others } from './rateOthers';
import { probeStepMs, RESET_MARGIN_MS, ServerWindow } from './rateWindow';

/** While a probe is out, the other requests ask again after this long. */
const PROBE_POLL_MS = 20;

/** A probe with no answer after this long is taken as lost (a cancelled execution). */
const PROBE_LOST_MS = 35_000;

/** What a 429 may say beyond its headers. */
export interface Refusal {
	/** The server's Retry-After, in milliseconds. */
	retryAfterMs?: number;
}

interface Probe {
	/** Probes answered so far without confirming a new window (refused, or still the old window). */
	tries: number;
	/** No probe before this. */
	nextAt: number;
	inFlight: boolean;
	sentAt: number;
	/** When the last probe that did not confirm was sent. */
	missAt?: number;
	/** The server's X-RateLimit-Remaining before the probe: a new window answers more. */
	before?: number;
	/** The old window's announced reset (this host's clock). */
	announced?: number;
	/** Sent because the reset was due (not after a 429), then: where it falls can be learned from it. */
	dueAt?: number;
}

/**
 * The budget of one key as this process sees it, shared fairly with the key's other clients (the
 * company's backend, another workflow, other queue-mode workers). `reserve` hands out a slot or
 * says how long to wait; `observe` corrects the picture with every response's headers. What it
 * decides, from what it believes about the server (ServerWindow) and the others (Others):
 *
 * - **Alone** on the key (no other client seen in this window or the last, or a limiter that frees
 *   slots one at a time), it sends what the window has left as fast as the requests come, and
 *   waits for the reset (the next free slot).
 * - **Beside clients that send as it does**, its fair part of the window at once; beyond it, what
 *   is left once their parts and what clients that spread their requests spend are kept back; all
 *   of what is left once they are seen to have stopped (one request asks).
 * - **Beside clients that spread their requests**, what is left once what they are expected to
 *   spend is kept back, at once; now and then one request looks whether they spent less.
 * - **A reset is never trusted on its own**: when it is due and nothing is left, one probe goes
 *   out, and only an answer showing the new window (Remaining back up, or a later reset) lets the
 *   rest go; one that is refused or still meets the old window is followed by the next
 *   (ServerWindow.nextProbe). A 429 holds everything until a probe: at the reset it names, after
 *   the server's Retry-After, or a step.
 */
export class Pacer {
	limit?: number;

	/** What this process may still send in the current window, as far as it knows. */
	remaining?: number;

	private inFlight = 0;

	/** The server's X-RateLimit-Remaining at the last answer. */
	private serverRemaining?: number;

	/** The server's window, clock and resets, as its headers show them. */
	private server = new ServerWindow();

	/** The key's other clients, as the server's count shows them. */
	private others = new Others();

	/** Set while the window's reset is due and not yet confirmed by the server. */
	private probe?: Probe;

	/** The server's clock minus this host's, as far as known (0 when it sends no Date). */
	get serverClockOffset(): number {
		return this.server.offset;
	}

	/**
	 * When the current window's reset is to be probed (this host's clock), if a window is known: not
	 * the reset the server announced (see ServerWindow.probeStart).
	 */
	get probeDueAt(): number | undefined {
		return this.server.window === undefined ? undefined : this.probeStart();
	}

	/**
	 * 0: a slot is reserved, send now. Otherwise: milliseconds to wait before asking again.
	 * `share` (0 to 1) caps the part of the key's limit this process takes per window.
	 */
	reserve(now: number, share = 1): number {
		const window = this.server.window;
		// The reset is due: one probe finds out whether it came. Alone with slots left, the requests
		// themselves find out (a server that frees slots one at a time names the next free slot as
		// its reset, and has slots all the same).
		const spent = (this.remaining ?? 0) <= 0 || share < 1 || !this.alone();
		if (!this.probe && window && spent && now >= this.probeStart()) {
			this.probe = {
				tries: 0,
				nextAt: now,
				inFlight: false,
				sentAt: now,
				before: this.serverRemaining,
				announced: window.lo,
				dueAt: this.probeStart(),
			};
		}
		const probe = this.probe;
		if (probe) {
			if (probe.inFlight && now - probe.sentAt < PROBE_LOST_MS) return PROBE_POLL_MS;
			if (now < probe.nextAt) return probe.nextAt - now;
			probe.inFlight = true;
			probe.sentAt = now;
			return this.take();
		}
		if (this.remaining === undefined) return this.take();
		if (window === undefined) {
			if (this.remaining > 0) return this.take();
			// Spent, and no reset announced: probe with a growing step.
			const step = probeStepMs(0, this.server.length());
			this.probe = { tries: 0, nextAt: now + step, inFlight: false, sentAt: now };
			return step;
		}
		const untilReset = Math.max(1, this.probeStart() - now);
		if (share >= 1 && this.alone()) return this.remaining > 0 ? this.take() : untilReset;
		const others = this.others;
		const limit = this.limit ?? 0;
		const mine = others.ours + this.inFlight;
		const left = (this.serverRemaining ?? 0) - this.inFlight;
		const resetAt = now + untilReset;
		const answered = others.answeredAt ?? now;
		// Never less than our fair part of the window while any is left.
		const fair = Math.min(this.remaining, others.fairPart(limit) - mine);
		let budget: number;
		let asked: number;
		if (others.pacers()) {
			// Beside clients that send as we do: beyond our part, what is left once they have sent
			// theirs and what clients that spread their requests spend until the reset is kept back.
			budget = Math.max(fair, left - others.keepBeside(answered, resetAt, limit));
			asked = left - others.keepBeside(now, resetAt, limit);
		} else {
			// Beside clients that spread their requests: what is left once what they are expected to
			// spend is kept back.
			budget = Math.max(fair, left - others.keep(now, resetAt, limit));
			asked = left - others.keep(now, resetAt, limit, true);
		}
		// Had the others spent nothing since our last answer, there would be room: a request tells.
		// Clients that send as we do met none of our requests: past the lateness allowed to one, a
		// request tells whether they stopped (then the rest is ours). One such request at a time.
		const ask = (asked >= 1 && others.mayAsk(now)) || (left >= 1 && others.mayCheckStopped(now));
		if (budget < 1 && ask) {
			others.asking(now);
			budget = 1;
		}
		if (share < 1 && this.limit !== undefined) {
			budget = Math.min(budget, Math.floor(share * this.limit) - mine);
		}
		if (budget >= 1) return this.take();
		// Room opens as the others' expected rest shrinks: look again a little later.
		return Math.min(untilReset, Math.max(PROBE_POLL_MS, Math.round(this.server.length() / 200)));
	}

	/**
	 * A reserved request got an answer carrying these headers; `refused` when it was a 429.
	 */
	observe(reading: RateLimitReading, now: number, refused?: Refusal): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		// Answers are not matched to requests: any answer while the probe is out is taken as its.
		const probe = this.probe;
		const probeOut = probe?.inFlight === true;
		if (probe) probe.inFlight = false;
		this.server.clock(reading, now);
		if (reading.limit !== undefined) this.limit = reading.limit;
		const resetAt = this.server.localReset(reading, now);
		if (refused) {
			if (!probe) this.countRefused(reading, resetAt, now);
			if (this.server.window === undefined && resetAt !== undefined && resetAt > now) {
				this.others.refusedFirst();
			}
			const nonsense = reading.resetAt !== undefined && resetAt === undefined;
			return this.refusedAt(now, resetAt, refused, probeOut, reading.resetWhole === true, nonsense);
		}
		if (probe) {
			const newWindow =
				probe.before === undefined ||
				reading.remaining === undefined ||
				reading.remaining >= probe.before ||
				(resetAt !== undefined && this.server.movedOn(resetAt, probe.announced));
			if (!newWindow) {
				// Still the old window: the reset was announced early. The slot was used, nothing lost.
				this.missed(probe, now, probeOut);
				this.serverRemaining = reading.remaining;
				this.remaining = Math.max(0, (reading.remaining ?? 0) - this.inFlight);
				return;
			}
			const dueAt = probe.dueAt;
			if (dueAt !== undefined) this.server.learn({ ...probe, dueAt });
			this.probe = undefined;
			// A server that does not count in headers: back to sending freely.
			if (reading.remaining === undefined) this.remaining = this.serverRemaining = undefined;
			this.startWindow(reading, resetAt, now, dueAt !== undefined);
		} else if (resetAt !== undefined && this.server.movedOn(resetAt)) {
			// The server moved on before the reset we expected: a new window all the same.
			this.startWindow(reading, resetAt, now);
		}
		if (reading.remaining !== undefined) {
			this.serverRemaining = reading.remaining;
			// Requests still in flight were counted locally but not yet by the server.
			this.remaining = Math.max(0, reading.remaining - this.inFlight);
		}
		if (resetAt === undefined) return;
		if (this.server.window === undefined) this.startWindow(reading, resetAt, now);
		this.server.track(resetAt);
		this.count(reading, now);
	}

	/** A reserved request ended without a usable response (the probe may have been it). */
	release(): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		this.others.asking(undefined);
		if (this.probe?.inFlight) this.probe.inFlight = false;
	}

	/**
	 * Whether a request refused with 429 since `since` keeps trying: while the next probe is due
	 * within the patience (see `patienceMs`).
	 */
	mayRetry(since: number, now: number): boolean {
		return (this.probe?.nextAt ?? now) - since <= this.patienceMs();
	}

	/**
	 * How long a request keeps trying through 429s: two windows of the key (the API's 60 s when
	 * none was seen yet), at least 30 s.
	 */
	patienceMs(): number {
		return Math.max(30_000, 2 * this.server.length());
	}

	private take(): 0 {
		if (this.remaining !== undefined) this.remaining--;
		this.inFlight++;
		return 0;
	}

	/** A probe answered without a new window: the next one (see ServerWindow.nextProbe). */
	private missed(probe: Probe, now: number, probeOut: boolean): void {
		if (probeOut) probe.missAt = probe.sentAt;
		probe.nextAt = Math.max(probe.nextAt, this.server.nextProbe(now, probe.tries));
		probe.tries++;
	}

	/** When the window's reset is to be probed (see ServerWindow.probeStart). */
	private probeStart(): number {
		return this.server.probeStart(this.alone());
	}

	/**
	 * A 429: nothing goes until a probe, after the server's wait, the announced reset (first contact
	 * or not), or a growing step; a reset that made no sense, after a window's length.
	 */
	private refusedAt(
		now: number,
		resetAt: number | undefined,
		refusal: Refusal,
		probeOut: boolean,
		whole: boolean,
		nonsense: boolean,
	): void {
		this.remaining = 0;
		this.serverRemaining = 0;
		const window = this.server.window;
		let probe = this.probe;
		const after =
			probeOut && resetAt !== undefined && this.server.movedOn(resetAt, probe?.announced);
		if (probe && after) {
			// The probe's 429 names the next reset: it came after the reset, when the others had
			// already spent the window. Next time earlier: else a pacer late once stays late (the
			// others, not seeing it, take its part) and its item waits until it gives up.
			this.server.tooLate(probe.sentAt);
			probe.missAt = undefined;
			probe.tries = 0;
			probe.announced = resetAt;
		}
		if (!probe) {
			// Refused in the middle of a window: any answer that is not a 429 shows a new one.
			probe = { tries: 0, nextAt: now, inFlight: false, sentAt: now, before: 0 };
			if (window) probe.announced = window.lo;
			this.probe = probe;
		}
		let wait = refusal.retryAfterMs;
		// An exact reset still ahead is the next probe (no step beyond it); Retry-After in whole
		// seconds within the second after it is that reset rounded up.
		const exact = resetAt !== undefined && !whole && resetAt > now;
		if (exact) {
			if (probeOut) probe.missAt = probe.sentAt;
			probe.tries++;
			if (wait !== undefined && resetAt - now > wait - 1000) wait = undefined;
		} else {
			this.missed(probe, now, probeOut);
		}
		if (wait !== undefined && wait <= MAX_RESET_AHEAD_MS) {
			probe.nextAt = Math.max(probe.nextAt, now + wait);
		}
		if (resetAt !== undefined && resetAt > now) {
			// A reset still ahead is waited for, also at first contact (a key spent before the run).
			const ahead = window
				? this.server.probeStart(this.alone(), { ...window, lo: resetAt, hi: resetAt })
				: resetAt + RESET_MARGIN_MS;
			probe.nextAt = Math.max(probe.nextAt, ahead);
		} else if (resetAt !== undefined && whole && !window && now - resetAt < 1000) {
			// Before any window was seen, a reset written as now in whole seconds (rounded down): the
			// real one lies within the next second. Once windows were seen, where resets really fall
			// is learned (probeStart).
			probe.nextAt = Math.max(probe.nextAt, resetAt + 1000 + RESET_MARGIN_MS);
		} else if (nonsense && wait === undefined) {
			probe.nextAt = Math.max(probe.nextAt, now + this.server.length());
		}
	}

	/** A new window begins (or the server names none): the count of the others starts over. */
	private startWindow(
		reading: RateLimitReading,
		resetAt: number | undefined,
		now: number,
		atReset = false,
	): void {
		const began = this.server.begin(reading, resetAt, now, this.limit, atReset);
		if (began) this.others.begin(began.start, began.length);
		else this.others.forget();
	}

	/** Our answer: the server's count minus ours (this one and those still out) is the others'. */
	private count(reading: RateLimitReading, now: number): void {
		if (this.limit === undefined || reading.remaining === undefined) return;
		const others = this.limit - reading.remaining - this.others.ours - 1 - this.inFlight;
		this.others.answer(now, Math.max(0, others), reading.remaining, this.inFlight);
	}

	/**
	 * Our 429 before this window's reset was due, the server's count spent, others already seen:
	 * they took what we left them and wanted more than they got. Not one that names a reset already
	 * past (an old window's, answered late); not alone (a limiter that frees slots one at a time
	 * refuses us with nobody else).
	 */
	private countRefused(reading: RateLimitReading, resetAt: number | undefined, now: number): void {
		if (this.limit === undefined || reading.remaining !== 0 || this.alone()) return;
		if (!this.server.window || resetAt === undefined || resetAt <= now) return;
		if (now >= this.probeStart()) return;
		this.others.refused(now, Math.max(0, this.limit - this.others.ours - this.inFlight));
	}

	/** No other client seen on the key, in this window or the last. */
	private alone(): boolean {
		return this.server.refills || this.others.alone();
	}
}

/** Exponential backoff with jitter, for attempt 1, 2, 3 … */
export function backoffMs(attempt: number, random: number, baseMs = 250, capMs = 8000): number {
	const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
