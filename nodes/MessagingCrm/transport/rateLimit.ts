/**
 * Pacing under the API's rate limit, from what it believes about the server (rateWindow.ts) and how
 * it shares a window with the key's other clients (rateShares.ts). The caller passes the clock in.
 */
import type { RateLimitReading } from './rateHeaders';
import { MAX_RESET_AHEAD_MS } from './rateHeaders';
import { Shares } from './rateShares';
import { probeStepMs, RESET_MARGIN_MS, ServerWindow } from './rateWindow';

/** While a probe is out, the other requests ask again after this long. */
const PROBE_POLL_MS = 20;
/** A probe with no answer after this long is taken as lost (a cancelled execution). */
const PROBE_LOST_MS = 35_000;

/** What a 429 may say beyond its headers: the server's Retry-After, in milliseconds. */
export interface Refusal {
	retryAfterMs?: number;
}

interface Probe {
	/** Probes answered without a new window; none before `nextAt`; the last that missed, sent at `missAt`. */
	tries: number;
	nextAt: number;
	inFlight: boolean;
	sentAt: number;
	missAt?: number;
	/** X-RateLimit-Remaining before the probe (a new window answers more); the old window's reset. */
	before?: number;
	announced?: number;
	/** Sent because the reset was due (not after a 429): where it falls is learned from it. */
	dueAt?: number;
}

/**
 * The budget of one key as this process sees it: `reserve` hands out a slot or says how long to
 * wait, `observe` reads every answer's headers. Its rules, highest first (docs/pacer.md): share
 * (rateShares.ts), retry (`mayRetry`), probe (`probing`, `refusedAt`), speed (Shares.decide).
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
	/** How this window is shared with the key's other clients (rateShares.ts). */
	private shares = new Shares();
	/** A request was told to wait since our last answer: the next answer is not back to back. */
	private waited = false;
	/** Set while the window's reset is due and not yet confirmed by the server. */
	private probe?: Probe;

	/** The server's clock minus this host's, as far as known (0 without Date). */
	get serverClockOffset(): number {
		return this.server.offset;
	}

	/** When the current window's reset is to be probed (ServerWindow.probeStart), if one is known. */
	get probeDueAt(): number | undefined {
		return this.server.window === undefined ? undefined : this.probeStart();
	}

	/**
	 * 0: a slot is reserved, send now; otherwise the milliseconds to wait before asking again. `share`
	 * (0 to 1) caps this process's part of each window; `wanting`: the run's requests left, this one too.
	 */
	reserve(now: number, share = 1, wanting = 1): number {
		const wait = this.decide(now, share, wanting);
		// Another request of this process still out: its answer comes back to back all the same.
		if (wait > 0 && this.inFlight === 0) this.waited = true;
		return wait;
	}

	private decide(now: number, share: number, wanting: number): number {
		const probing = this.probing(now, share);
		if (probing !== undefined) return probing;
		if (this.remaining === undefined) return this.take();
		const window = this.server.window;
		if (window === undefined) {
			if (this.remaining > 0) return this.take();
			// Spent, and no reset announced: probe with a growing step.
			const step = probeStepMs(0, this.server.length());
			this.probe = newProbe(now, now + step);
			return step;
		}
		const untilReset = Math.max(1, this.probeStart() - now);
		if (this.remaining <= 0) return untilReset;
		const cap = share < 1 && this.limit !== undefined ? Math.floor(share * this.limit) : Infinity;
		if (this.shares.ours + this.inFlight >= cap) return untilReset;
		if (this.server.refills) {
			// Slots free one at a time: alone, the last slot waits for the look.
			const at = this.server.lookAt();
			const last = this.remaining === 1 && this.server.windowMs !== undefined && now < at;
			return last ? Math.max(PROBE_POLL_MS, Math.min(at - now, this.pollMs())) : this.take();
		}
		if (this.due(now)) return this.take();
		const left = (this.serverRemaining ?? this.remaining) - this.inFlight;
		const wait = this.shares.decide(now, left, wanting, this.server.lookAt(), window.lo);
		if (wait === 0) return this.take();
		return Math.max(1, Math.min(untilReset, wait, this.pollMs()));
	}

	/** Rule probe: once the reset is due (or a 429 came), one probe at a time; the rest wait for its answer. */
	private probing(now: number, share: number): number | undefined {
		const window = this.server.window;
		// Alone with slots left, the requests themselves find out whether the reset came.
		const spent = (this.remaining ?? 0) <= 0 || share < 1 || !this.alone();
		if (!this.probe && window && spent && now >= this.probeStart()) {
			const [before, announced, dueAt] = [this.serverRemaining, window.lo, this.probeStart()];
			this.probe = { ...newProbe(now), before, announced, dueAt };
		}
		const probe = this.probe;
		if (!probe) return undefined;
		if (probe.inFlight && now - probe.sentAt < PROBE_LOST_MS) return PROBE_POLL_MS;
		if (now < probe.nextAt) return probe.nextAt - now;
		probe.inFlight = true;
		probe.sentAt = now;
		return this.take();
	}

	/** A reserved request got an answer carrying these headers; `refused` when it was a 429. */
	observe(reading: RateLimitReading, now: number, refused?: Refusal): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		// Answers are not matched to requests: any answer while the probe is out is taken as its.
		const probe = this.probe;
		const probeOut = probe?.inFlight === true;
		if (probe) probe.inFlight = false;
		// Alone, the look's answers are read for the count only: their reset and Date, later in the
		// window, would move the probes that learned where resets fall from the window's first burst.
		const pastLook = this.server.window !== undefined && now >= this.server.lookAt();
		const looked = !probeOut && this.alone() && pastLook;
		if (!looked) this.server.clock(reading, now);
		if (reading.limit !== undefined) this.limit = reading.limit;
		const resetAt = this.server.localReset(reading, now);
		if (refused) {
			if (!probe) this.countRefused(reading, resetAt, now);
			return this.refusedAt(now, resetAt, refused, probeOut, reading);
		}
		if (probe) {
			const newWindow =
				probe.before === undefined ||
				reading.remaining === undefined ||
				reading.remaining >= probe.before ||
				(resetAt !== undefined && this.server.movedOn(resetAt, probe.announced));
			if (!newWindow) {
				// Still the old window: the reset was announced early; the slot was used, nothing lost.
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
		if (!looked) this.server.track(resetAt);
		this.count(reading, now);
	}

	/** A reserved request ended without a usable response (the probe may have been it). */
	release(): void {
		this.inFlight = Math.max(0, this.inFlight - 1);
		if (this.probe?.inFlight) this.probe.inFlight = false;
	}

	/** Rule retry: a request refused since `since` keeps trying while the next probe is due within `patienceMs`. */
	mayRetry(since: number, now: number): boolean {
		return (this.probe?.nextAt ?? now) - since <= this.patienceMs();
	}

	/** How long a request keeps trying through 429s: two windows (60 s before one was seen), 30 s at least. */
	patienceMs(): number {
		return Math.max(30_000, 2 * this.server.length());
	}

	/** How soon a request that may not go yet asks again: a 200th of the window, at least 20 ms. */
	private pollMs(): number {
		return Math.max(PROBE_POLL_MS, Math.round(this.server.length() / 200));
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

	/** Rule probe: the reset is due. Asked only alone with slots left (else `probing` probes): the request finds out. */
	private due(now: number): boolean {
		return now >= this.probeStart();
	}

	private probeStart(): number {
		return this.server.probeStart(this.alone());
	}

	/** A 429 (rule probe): nothing goes until a probe, at the reset it names, after Retry-After, or a step. */
	private refusedAt(
		now: number,
		resetAt: number | undefined,
		refusal: Refusal,
		probeOut: boolean,
		reading: RateLimitReading,
	): void {
		this.remaining = 0;
		this.serverRemaining = 0;
		const window = this.server.window;
		let probe = this.probe;
		const after =
			probeOut && resetAt !== undefined && this.server.movedOn(resetAt, probe?.announced);
		if (probe && after) {
			// The probe's 429 names the next reset: it came too late, the others had spent the window.
			this.server.tooLate(probe.sentAt);
			probe.tries = 0;
			probe.announced = resetAt;
		}
		if (!probe) {
			// Refused in the middle of a window: any answer that is not a 429 shows a new one.
			probe = this.probe = { ...newProbe(now), before: 0, announced: window?.lo };
		}
		if (probeOut) probe.missAt = probe.sentAt;
		let wait = refusal.retryAfterMs;
		// An exact reset ahead is the next probe; Retry-After within a second after it is that reset.
		const exact = resetAt !== undefined && !reading.resetWhole && resetAt > now;
		if (exact) {
			probe.tries++;
			if (wait !== undefined && resetAt - now > wait - 1000) wait = undefined;
		} else if (wait !== undefined && resetAt === undefined && !window) {
			// No reset named, now or before: the server's Retry-After is the step, doubling while
			// refused (20 ms at least, 2 s at most, unless it asks for longer).
			const step = Math.min(2000, Math.max(PROBE_POLL_MS, wait) * 2 ** probe.tries);
			probe.nextAt = Math.max(probe.nextAt, now + step);
			probe.tries++;
		} else {
			this.missed(probe, now, probeOut);
		}
		if (wait !== undefined && wait <= MAX_RESET_AHEAD_MS)
			probe.nextAt = Math.max(probe.nextAt, now + wait);
		if (resetAt !== undefined && resetAt > now) {
			// A reset still ahead is waited for, also at first contact (a key spent before the run).
			const ahead = window
				? this.server.probeStart(this.alone(), { ...window, lo: resetAt, hi: resetAt })
				: resetAt + RESET_MARGIN_MS;
			probe.nextAt = Math.max(probe.nextAt, ahead);
		} else if (reading.resetAt !== undefined && resetAt === undefined && wait === undefined) {
			// A reset that makes no sense (ServerWindow.localReset), and no Retry-After: a window.
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
		if (began) this.shares.begin(began.start, began.length);
		else this.shares.forget();
	}

	/** Our answer: the server's count minus ours (this one and those still out) is the others'. */
	private count(reading: RateLimitReading, now: number): void {
		if (this.limit === undefined || reading.remaining === undefined) return;
		const others = this.limit - reading.remaining - this.shares.ours - 1 - this.inFlight;
		this.shares.answer(now, Math.max(0, others), reading.remaining, this.late(now), !this.waited);
		this.waited = false;
	}

	/** Our 429 before the reset was due, the count spent: the others wanted more (alone, only at the look; at first contact, `spentBefore`). */
	private countRefused(reading: RateLimitReading, resetAt: number | undefined, now: number): void {
		if (this.limit === undefined || reading.remaining !== 0 || this.server.refills) return;
		if (resetAt === undefined || resetAt <= now) return;
		if (!this.server.window) return this.shares.spentBefore();
		if (now >= this.probeStart()) return;
		if (this.alone() && !this.late(now)) return;
		const others = Math.max(0, this.limit - this.shares.ours - this.inFlight);
		this.shares.refused(now, others, this.limit);
	}

	/** An answer now shows the window whole: at the look, or as late as another client may come before it. */
	private late(now: number): boolean {
		return now >= this.server.lookAt() - this.shares.slack();
	}

	private alone(): boolean {
		return this.server.refills || this.shares.alone();
	}
}

/** A probe not sent yet, due at `nextAt`. */
function newProbe(now: number, nextAt = now): Probe {
	return { tries: 0, nextAt, inFlight: false, sentAt: now };
}
