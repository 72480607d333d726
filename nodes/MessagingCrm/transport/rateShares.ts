/**
 * How a pacer shares a window with the key's other clients ("the others": another process of the
 * node looks the same in the headers), from the server's count minus ours at each answer. Each
 * rule is named in docs/pacer.md; the caller passes the time in.
 */

/** One answer of ours: when, what the others had spent by then, what the server had left. */
type Mark = { at: number; others: number; left: number };

/**
 * A window as this process saw it. `whole`: an answer at its end (the look) or a 429 showed what
 * the others spent; `refused`: a 429 of ours before the reset, the others wanting `wanted` by
 * `at`; `held`: what waits for the look; `crowded`: our first contact before it was a 429.
 */
interface Seen {
	start: number;
	length: number;
	marks: Mark[];
	whole: boolean;
	refused?: { at: number; wanted: number; others: number };
	held?: number;
	crowded?: boolean;
}

/** The others' requests counted between two back-to-back answers of ours: the last this many. */
const STEPS_MEMORY = 64;

export class Shares {
	private current?: Seen;
	private prior?: Seen;
	/** The most the others spent in a window, all of it before our first answer there (`atStart`). */
	private burst = 0;
	/** Between our answers sent back to back: the others' requests (`guard`) and the time taken. */
	private steps: number[] = [];
	private gaps: number[] = [];

	/** Refused before any window was seen (`spentBefore`). */
	private crowded = false;

	/** Share (`spentBefore`): our first contact was a 429, the others spent the key: the next window is not ours alone. */
	spentBefore(): void {
		this.crowded = true;
	}

	/** A new window began at `start` (this host's clock) and lasts `length`. */
	begin(start: number, length: number): void {
		const last = this.current;
		// A first window's start was a guess (the API's minute before its reset): it ended here.
		if (last && last.marks.length)
			this.prior = { ...last, start: Math.max(last.start, start - length) };
		const p = this.prior;
		this.burst = this.atStart(p);
		// After a pause of more than a window, the last one says nothing of this one.
		const lastAt = p?.marks[p.marks.length - 1]?.at ?? -Infinity;
		if (start - lastAt > length)
			[this.prior, this.steps, this.gaps, this.burst] = [undefined, [], [], 0];
		this.current = { start, length, marks: [], whole: false, crowded: this.crowded };
		this.crowded = false;
	}

	/** Share, at the start (`atStart`): the most the others spent in a window seen whole, all before our first answer there, while each since was so. */
	private atStart(p: Seen | undefined): number {
		const before = p?.marks[0].others ?? 0;
		const after = Math.max(this.spent(p), p?.refused?.others ?? 0);
		if (!p || !p.whole || before === 0 || after > before) return 0;
		return Math.max(this.burst, before);
	}

	/** The server names no window (or does not count): nothing is known. */
	forget(): void {
		[this.current, this.prior] = [undefined, undefined];
		[this.steps, this.gaps, this.burst] = [[], [], 0];
	}

	/** Our answer: the others had spent `others`, `left` remained; `late`: at the look. */
	answer(now: number, others: number, left: number, late: boolean, backToBack: boolean): void {
		const t = this.current;
		if (!t) return;
		const last = t.marks[t.marks.length - 1];
		if (last && backToBack) {
			this.steps = [...this.steps, Math.max(0, others - last.others)].slice(-STEPS_MEMORY);
			// A quarter of a second at most: an execution of ours that started later is no round trip.
			this.gaps = [...this.gaps, Math.min(250, now - last.at)].slice(-STEPS_MEMORY);
		}
		t.marks.push({ at: now, others: Math.max(others, last?.others ?? 0), left });
		if (late) t.whole = true;
	}

	/** Share (`refused`): our 429 before the reset; the others wanted a quarter of the limit more, half at least. */
	refused(now: number, others: number, limit: number): void {
		const t = this.current;
		if (!t) return;
		const more = Math.max(others + Math.ceil(limit / 4), Math.ceil(limit / 2));
		const wanted = Math.min(limit, Math.max(more, t.refused?.wanted ?? 0));
		t.refused = { at: now, wanted, others: Math.max(others, t.refused?.others ?? 0) };
		t.whole = true;
	}

	/** Our accepted answers in this window. */
	get ours(): number {
		return this.current?.marks.length ?? 0;
	}

	/** No other client seen on the key, in this window or the last, and our first contact was no 429. */
	alone(): boolean {
		return !this.current?.crowded && this.spent(this.current) === 0 && this.spent(this.prior) === 0;
	}

	/** What the others had spent in a window by our last answer (0 for none). */
	private spent(t?: Seen): number {
		return t?.marks[t.marks.length - 1]?.others ?? 0;
	}

	/** How late another client may come and still be expected: a 60th of the window, four round trips at least. */
	slack(): number {
		return Math.max((this.current?.length ?? 60_000) / 60, 4 * this.roundTrip());
	}

	/** A round trip: the mean time between two of our answers back to back; 50 ms before two came so. */
	roundTrip(): number {
		if (!this.gaps.length) return 50;
		return Math.max(1, this.gaps.reduce((a, b) => a + b, 0) / this.gaps.length);
	}

	/**
	 * Share, kept: what the others will still spend in this window, as they did in the last one seen
	 * whole: what they spent there after the moment `slack` before now, or what they have not spent
	 * of it yet, whichever is less. At the look (`look`), only what they had spent by that moment.
	 */
	kept(now: number, look = Infinity): number {
		const [p, t] = [this.prior, this.current];
		if (!p || !p.whole || !t) return 0;
		// At the start (`atStart`): their burst may straddle the reset, its end after our look.
		const first = t.marks[0]?.others ?? 0;
		if (this.burst > 0 && first > 0 && this.spent(t) === first) return this.burst - first;
		const spent = Math.max(this.spent(p), p.refused?.wanted ?? 0);
		const total = Math.min(spent, spentBy(p, look - t.start));
		// While our last answers back to back saw nobody else, four round trips are late enough.
		const quiet = this.quiet(now) ? 4 * this.roundTrip() : this.slack();
		const by = spentBy(p, now - t.start - quiet);
		return Math.max(0, total - Math.max(this.spent(t), by));
	}

	/** Our last three answers came close together, the last a moment ago, with nobody else's between. */
	private quiet(now: number): boolean {
		const last = (this.current?.marks ?? []).slice(-3);
		if (last.length < 3) return false;
		const rtt = this.roundTrip();
		const together = last[2].at - last[0].at <= 2 * (2 * rtt + 10) && now - last[2].at <= 2 * rtt;
		return together && last[2].others === last[0].others;
	}

	/** Share (`atRate`), in a first window and the look: the others until `resetAt` at their last tenth's rate. */
	private atRate(now: number, resetAt: number): number {
		const t = this.current;
		const marks = t?.marks ?? [];
		if (!t || marks.length < 2) return 0;
		const last = marks[marks.length - 1];
		const from = [...marks].reverse().find((m) => m.at <= now - t.length / 10) ?? marks[0];
		if (last.others === from.others) return 0;
		// One request more than counted: a client spreading its requests is seen between two of them.
		const rate = (last.others - from.others + 1) / Math.max(last.at - from.at, this.slack());
		return Math.ceil(rate * Math.max(0, resetAt - now));
	}

	/**
	 * Speed, guard: room for the others' requests on their way: the median of those counted between
	 * two of our answers back to back; after a wait (`stale`), the most (twice the median and two).
	 */
	guard(stale: boolean): number {
		if (!this.steps.length) return 0;
		const typical = median(this.steps);
		return stale ? Math.min(Math.max(...this.steps), 2 * typical + 2) : typical;
	}

	/** Share, held: what waits for the look, fixed at our first answer: half of what is free; alone, the last slot. */
	held(): number {
		const t = this.current;
		if (!t || !t.marks.length) return 0;
		if (t.held !== undefined) return t.held;
		const first = t.marks[0];
		const free = Math.max(0, first.left - this.kept(first.at));
		return (t.held = this.alone() ? Math.min(1, free) : Math.floor(free / 2));
	}

	/**
	 * Share, base: beside others, no more before the look than we took in the last window. What was
	 * freed since (a process of ours that ran out) goes at the look: every process of ours would
	 * take it at once, and the other client's part with it.
	 */
	base(): boolean {
		const p = this.prior;
		return !p || this.alone() || this.ours < p.marks.length;
	}

	/**
	 * Share, short look (`lookEnded`): in a first window nothing shows what comes at the reset (a
	 * client's burst, the other processes' looks): the look ends halfway to it.
	 */
	lookEnded(now: number, lookAt: number, resetAt: number): boolean {
		return !this.prior && now > lookAt + (resetAt - lookAt) / 2;
	}

	/**
	 * Speed (`decide`): 0 (one request may go now) or the milliseconds to wait. A run of `wanting` that
	 * fits what is `left` less what is kept goes at once (within `base`); otherwise it takes down to
	 * what is held, and the rest from the look's start on (`lookAt`: the window's last slot).
	 */
	decide(now: number, left: number, wanting: number, lookAt: number, resetAt: number): number {
		const [t, p] = [this.current, this.prior];
		const stale = !t?.marks.length || now - t.marks[t.marks.length - 1].at > 2 * this.roundTrip();
		const guard = this.guard(stale);
		const held = this.held();
		const expected = Math.max(this.kept(now), p ? 0 : this.atRate(now, resetAt));
		// Two slots more for what is kept (a request late on its way), where none is guarded.
		const kept = expected + (expected > 0 && guard === 0 ? 2 : 0);
		const free = left - kept - guard;
		if (this.base() && free >= Math.min(wanting, held + 1)) return 0;
		// The look: the held requests back to back, then the last at `lookAt`, which sees the window whole.
		const room = Math.max(0, Math.min(left - kept, wanting));
		const start = lookAt - (room + 2) * this.roundTrip() * 1.5;
		if (now < start) return start - now;
		const rate = this.atRate(now, resetAt);
		const inLook = left - Math.max(kept, rate) - guard;
		if (now < lookAt) return inLook >= 2 ? 0 : lookAt - now;
		if (this.lookEnded(now, lookAt, resetAt)) return Math.max(20, resetAt - now);
		const first = (t?.marks[0]?.others ?? 0) === 0;
		// The last slot is the first sender's in the window: the others leave it, and room for theirs.
		const last = left - Math.max(this.kept(now, lookAt), rate) - (first ? 0 : guard + 1);
		// Past the reset, a probe or the next answer shows the new window: a poll, never a spin.
		return last >= 1 ? 0 : Math.max(20, resetAt - now);
	}
}

/** What the others had spent by `offset` into a window, as our answers saw it. */
function spentBy(t: Seen, offset: number): number {
	let most = 0;
	for (const m of t.marks) if (m.at - t.start <= offset) most = Math.max(most, m.others);
	if (t.refused && t.refused.at - t.start <= offset) most = Math.max(most, t.refused.wanted);
	return most;
}

/** The middle of some numbers (the upper one of two). */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
