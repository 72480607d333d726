/**
 * What the pacer believes about the server's limiter, from the headers: its window, its clock and
 * where its resets really fall (docs/pacer.md, how it reads the server). The Pacer decides.
 */
import type { RateLimitReading } from './rateHeaders';
import { MAX_RESET_AHEAD_MS } from './rateHeaders';

/** Margin added after the earliest moment a reset can have happened before the probe goes. */
export const RESET_MARGIN_MS = 25;
/** How many windows the learned position of the real reset looks back on. */
const LATENESS_MEMORY = 4;
/** The window's length when none was seen yet: the API's own (api-spec, Limits). */
const DEFAULT_WINDOW_MS = 60_000;

/** Between probes of a reset not come yet: a twelfth of the window (0.1 to 1 s), doubling, 2 s at most. */
export function probeStepMs(tries: number, windowMs: number): number {
	const first = Math.min(1000, Math.max(100, windowMs / 12));
	return Math.round(Math.min(2000, first * 2 ** tries));
}

export interface Window {
	/** The earliest and latest reset the answers of this window announced (this host's clock). */
	lo: number;
	hi: number;
	/** Announced in whole seconds. */
	whole: boolean;
	/** Announced as a moment on the server's clock (known to this host to a second, from Date). */
	epoch?: boolean;
	/** When this process first saw it. */
	seenAt: number;
}

/** The server's window, clock and resets as this process has seen them. */
export class ServerWindow {
	window?: Window;
	/** The window's length, once two were seen. */
	windowMs?: number;
	/** The server frees slots one at a time (a sliding window or a token bucket). */
	refills = false;
	private clockOffset?: number;
	/** Where the real reset fell in the last windows (ms after their base), and probes too late. */
	private learned: Array<{ lateness: number; tooLate: boolean }> = [];

	/** The server's clock minus this host's, as far as known (0 when it sends no Date). */
	get offset(): number {
		return this.clockOffset ?? 0;
	}

	/** The window's length as seen, or the API's own before two were seen. */
	length(): number {
		return this.windowMs ?? DEFAULT_WINDOW_MS;
	}

	/** An answer's Date header. */
	clock(reading: RateLimitReading, now: number): void {
		if (reading.serverDate === undefined) return;
		const sample = reading.serverDate - now;
		this.clockOffset =
			this.clockOffset === undefined ? sample : Math.max(sample, this.clockOffset - 10);
	}

	/** A reading's reset on this host's clock; unknown past an hour ahead or a window behind. */
	localReset(reading: RateLimitReading, now: number): number | undefined {
		if (reading.resetAt === undefined) return undefined;
		const local = reading.resetEpoch ? reading.resetAt - this.offset : reading.resetAt;
		if (local - now > MAX_RESET_AHEAD_MS || now - local > this.length()) return undefined;
		return local;
	}

	/** Resets less than this apart are the same window (whole seconds may differ by one). */
	private jumpMs(): number {
		return Math.max(1500, (this.windowMs ?? 0) / 2);
	}

	/** The server moved on to a window whose reset lies well past the one we knew. */
	movedOn(resetAt: number, announced = this.window?.lo): boolean {
		return announced !== undefined && resetAt > announced + this.jumpMs();
	}

	/**
	 * When to probe a window's reset: its base moved by where the real reset fell lately. Alone, a
	 * reset in whole seconds is first tried a second before the latest reading; shared, not before
	 * the reset can have come, unless a probe came too late (`tooLate`).
	 */
	probeStart(alone: boolean, window = this.window as Window): number {
		const lateness = this.learned.map((l) => l.lateness);
		const learned = lateness.length ? Math.min(...lateness) : undefined;
		const early = this.learned.some((l) => l.tooLate) ? Math.min(0, learned as number) : 0;
		const floor = window.whole && alone ? window.hi - 1000 - resetBase(window) : early;
		return resetBase(window) + Math.max(floor, learned ?? floor) + RESET_MARGIN_MS;
	}

	/**
	 * The look: the window's last slot goes a 120th of the window (50 ms at least) before the
	 * earliest the reset can come, moved earlier only by a reset learned to come earlier by more.
	 */
	lookAt(): number {
		const window = this.window as Window;
		const look = Math.max(50, this.length() / 120);
		const learned = Math.min(0, ...this.learned.map((l) => l.lateness));
		// In whole seconds before a probe learned where resets fall, the server's Date (whole seconds
		// too) may put the reset a second earlier still.
		const unsure = window.whole && window.epoch && this.learned.length === 0 ? 1000 : 0;
		const earliest = window.whole ? Math.min(window.lo, window.hi - 1000) - unsure : window.lo;
		return earliest + (learned < -look ? learned : 0) - look;
	}

	/** After the `tries`-th probe that missed: whole seconds at the latest reading, then a second after the earliest; then a step. */
	nextProbe(now: number, tries: number): number {
		const window = this.window;
		const rounded = window?.whole ? [window.hi, window.lo + 1000] : [];
		const next = rounded.map((t) => t + RESET_MARGIN_MS).find((t) => t > now);
		if (next !== undefined && tries < 2) return next;
		return now + probeStepMs(tries, this.length());
	}

	/** A probe due at `dueAt`, sent at `sentAt`, found the new window (`missAt`: the last that did not). */
	learn(probe: { dueAt: number; sentAt: number; missAt?: number }): void {
		const window = this.window;
		if (window === undefined) return;
		if (probe.missAt === undefined && probe.sentAt - probe.dueAt > 250) return;
		const base = (at: number) => at - RESET_MARGIN_MS - resetBase(window);
		const [late, missed] = [base(probe.sentAt), base(probe.missAt ?? -Infinity)];
		// At once: a little earlier than the probe; after a miss: halfway between the two.
		this.remember(missed >= 0 ? (missed + late) / 2 : late - (probe.missAt === undefined ? 50 : 0));
	}

	/** A probe sent at `sentAt` found the next window already spent: next time a sixtieth of the window earlier. */
	tooLate(sentAt: number): void {
		if (this.window === undefined) return;
		const window = this.windowOf(sentAt);
		this.remember(sentAt - this.length() / 60 - RESET_MARGIN_MS - resetBase(window), true);
	}

	private remember(lateness: number, tooLate = false): void {
		this.learned = [...this.learned, { lateness, tooLate }].slice(-LATENESS_MEMORY);
	}

	/**
	 * A new window whose reset is `resetAt` (undefined: the server names none): where it began and
	 * how long it lasts, as far as known, for the count of the others.
	 */
	begin(
		reading: RateLimitReading,
		resetAt: number | undefined,
		now: number,
		limit: number | undefined,
		atReset = false,
	): { start: number; length: number } | undefined {
		const old = this.window;
		this.window = undefined;
		if (resetAt === undefined) return undefined;
		const length = old ? resetAt - old.lo : 0;
		// Only a probe sent at the reset tells what it brought back. A fixed window's next reset is a
		// whole window after the one before; a refilling limiter's is when its oldest slot frees, within
		// the window it just left. An exact reset tells that alone; one in whole seconds only beyond a
		// second either way, or when the count is low too.
		if (old && atReset && length > 0 && limit !== undefined && reading.remaining !== undefined) {
			const few = reading.remaining < limit / 2;
			const span = old.lo - old.seenAt;
			const soon = length < span / 2;
			const wide = length + 1000 < (span - 1000) / 2;
			const named = reading.resetWhole ? (few && soon) || wide : soon;
			if (named || (reading.remaining <= 1 && length < 1000)) this.refills = true;
		}
		// After a pause of more than a window, the gap between two resets is not a window's length.
		const paused = old !== undefined && now - old.hi > Math.max(this.jumpMs(), this.windowMs ?? 0);
		const learns = old && !paused && !this.refills;
		if (learns && length > 0 && length < MAX_RESET_AHEAD_MS) this.windowMs = length;
		const whole = reading.resetWhole === true;
		this.window = { lo: resetAt, hi: resetAt, whole, epoch: reading.resetEpoch, seenAt: now };
		// Before a window's length was seen, the API's own (rateShares.ts sets it right at the next).
		const start = Math.min(now, resetAt - this.length());
		return { start, length: Math.max(1, resetAt - start) };
	}

	/** The window we know, moved on by whole windows to the reset nearest `at` (or one resetting at `at`). */
	private windowOf(at: number): Window {
		const [window, length] = [this.window as Window, this.windowMs ?? 0];
		const shift = length ? Math.round((at - window.lo) / length) * length : 0;
		if (!length || Math.abs(at - window.lo - shift) > this.jumpMs())
			return { ...window, lo: at, hi: at };
		return { ...window, lo: window.lo + shift, hi: window.hi + shift };
	}

	/** An answer in this window announced `resetAt`. */
	track(resetAt: number): void {
		const window = this.window as Window;
		window.lo = Math.min(window.lo, resetAt);
		window.hi = Math.max(window.hi, resetAt);
	}
}

/** Where a reset is taken to fall before anything is learned: as announced; in whole seconds, a second after the earliest reading. */
function resetBase(window: Window): number {
	return window.whole ? window.lo + 1000 : window.lo;
}
