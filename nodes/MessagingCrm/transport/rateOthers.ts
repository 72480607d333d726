/**
 * What the pacer believes about the key's other clients, from the server's count minus its own at
 * each of its answers, window by window. Pure bookkeeping: the caller passes the time in.
 */

/** How many windows a window seen whole is remembered for. */
const MEMORY = 2;

/** One window as this process saw it. */
interface Seen {
	/** When it resets (this host's clock), and its length as far as known. */
	end: number;
	length: number;
	/** Our answers in it. */
	ours: number;
	/**
	 * The others' count at each of our answers: [ms before the reset, spent by then]. Measured
	 * from the reset, since a first window's start is not seen.
	 */
	points: Array<[number, number]>;
	/** What the others had spent at our last answer, and what the server had left then. */
	others: number;
	left?: number;
	/** What they spent in it is known to its end: an answer at the look, or the window spent. */
	whole: boolean;
	/** Our look was refused: they wanted more than they got, how much is not known. */
	full: boolean;
	/** They were on the key before us: they had spent some at our first answer, or refused it. */
	before: boolean;
	/** Our first request was refused: they spent a whole window before we sent. */
	refusedFirst: boolean;
	/** Our last answer; when their count last rose at one of ours (or our first answer). */
	lastAt?: number;
	roseAt?: number;
	/** Their requests counted between two answers of ours sent back to back, each time. */
	rises: number[];
	/** The most of our requests out at once at an answer (executions running at once): one of them
	 * meets a client that sends as fast as it does between every `outs` pairs. */
	outs: number;
	/** Their count rose only while we sent back to back, never over a wait of ours: they pace as we do. */
	asWe: boolean;
}

/** What a window seen whole tells of the next ones: their total, when they spent it, windows since. */
interface Memory {
	total: number;
	points: Array<[number, number]>;
	age: number;
	/** Our look was refused: the total is a guess. */
	guessed: boolean;
}

/**
 * The key's other clients, whoever they are (the company's backend, another workflow, the node's
 * other processes or queue-mode workers), each window: what they spent in the windows seen whole
 * of the last two is kept back for them (`keep`), less what they have spent so far, until the
 * moment they had spent it then. Before a window of theirs was seen whole, half the limit while
 * they keep sending. A client never seen gets nothing (`alone`).
 */
export class Others {
	private current?: Seen;

	private memory: Memory[] = [];

	/** Our first request was refused: others spent the window before we sent. */
	private spentBefore = false;

	/** A new window that resets at `end` (this host's clock); the last is remembered if seen whole. */
	begin(end: number, length: number, limit: number): void {
		const last = this.current;
		if (last?.whole) {
			// Our look refused: a quarter of the limit more than they got, two thirds of it at least.
			const total = last.full
				? Math.max(last.others + Math.ceil(limit / 4), Math.ceil(limit / 2))
				: last.others;
			// A window measured whole replaces the guesses of windows whose look was refused.
			if (!last.full) this.memory = this.memory.filter((m) => !m.guessed);
			// When they spent it tells when they are done only of others that send as we do: they
			// sent between most pairs of our answers sent back to back (or nothing after our first).
			const after = total - (last.points[0]?.[1] ?? 0);
			const rising = last.rises.filter((r) => r > 0).length;
			const paced = after <= this.margin(limit) || 2 * rising * last.outs >= last.rises.length;
			// Others that pace as we do spend when we do: what we saw at an answer, they had spent
			// soon after the one before.
			const points = paced
				? last.points.map(
						([, spent], i) => [last.points[Math.max(0, i - 1)][0], spent] as [number, number],
					)
				: [];
			this.memory.push({ total, points, age: 0, guessed: last.full });
		}
		this.memory = this.memory.filter((m) => ++m.age <= MEMORY);
		// After a pause of more than a window, what the last windows said is old.
		if (last && (last.lastAt ?? last.end) < end - 2 * length) this.memory = [];
		const refusedFirst = this.spentBefore && this.memory.length === 0;
		this.spentBefore = false;
		const fresh = { points: [], ours: 0, others: 0, rises: [], outs: 1, asWe: true };
		const flags = { whole: false, full: false, before: refusedFirst, refusedFirst };
		this.current = { end, length, ...fresh, ...flags };
	}

	/** No window yet, or the server does not count. */
	forget(): void {
		this.current = undefined;
	}

	/** Our first request was refused before a window was seen: the others were there first. */
	refusedFirst(): void {
		if (this.memory.length === 0) this.spentBefore = true;
	}

	/**
	 * An answer of ours in this window: the others had spent `others`, `remaining` was left; `late`:
	 * at or after the look; `waited`: a request of ours waited since our last answer (this one was
	 * not sent back to back). A window spent before the look is seen whole: nobody can spend more.
	 */
	answer(
		now: number,
		reading: { others: number; remaining: number; limit: number; out: number },
		late: boolean,
		waited: boolean,
	): void {
		const { others, remaining, limit } = reading;
		const t = this.current;
		if (!t) return;
		const first = t.lastAt === undefined;
		if (first) t.before ||= others > 0;
		const rise = Math.max(0, others - t.others);
		if (!first && !waited) t.rises.push(rise);
		else if (!first && rise > 0) t.asWe = false;
		t.outs = Math.max(t.outs, reading.out);
		if (others > t.others || t.roseAt === undefined) t.roseAt = now;
		this.seen(t, now, others);
		t.ours++;
		t.left = remaining;
		if (late) t.whole = true;
		if (remaining <= 0 && t.others > 0 && limit > 0) t.whole = true;
	}

	/**
	 * One of ours was refused before the reset: the others spent all but ours (`others`). Before
	 * the look, the window is spent and so seen whole; at the look, they may have wanted more.
	 */
	refused(now: number, others: number, limit: number, late: boolean): void {
		const t = this.current;
		if (!t) return;
		// At the look, they may have wanted more than we knew of, unless they send as we do (racing
		// beside our requests) and we had left them no more than that race and the margin.
		const race = racing(t.rises);
		const ours = race > 0 && (t.left ?? 0) <= race + this.margin(limit);
		t.whole = true;
		t.full ||= late && !ours;
		t.roseAt = now;
		this.seen(t, now, others);
	}

	private seen(t: Seen, now: number, others: number): void {
		t.others = Math.max(t.others, others);
		t.points.push([now - t.end, t.others]);
		t.lastAt = now;
	}

	/** No other client seen on the key, in this window or those remembered. */
	alone(): boolean {
		const t = this.current;
		return !t?.others && !t?.before && this.memory.every((m) => m.total === 0);
	}

	/** What is kept for the others is a guess: no window of theirs seen whole, or a look refused. */
	guessing(): boolean {
		return this.memory.length === 0 ? !this.alone() : this.memory.some((m) => m.guessed);
	}

	/**
	 * While what is kept comes from a refused look, one request now and then (a tenth of the window after our last
	 * answer) sees what they have spent since; the guess keeps room for it.
	 */
	mayAsk(now: number): boolean {
		const t = this.current;
		const guessed = this.memory.some((m) => m.guessed);
		return !!t?.lastAt && guessed && now - t.lastAt >= t.length / 10;
	}

	/** Others' requests in flight while ours are, as their count between two of ours shows (see `racing`). */
	racing(): number {
		return racing(this.current?.rises ?? []);
	}

	/** Our answers in this window. */
	get ours(): number {
		return this.current?.ours ?? 0;
	}

	/** An answer of ours in this window came at or after the look. */
	get late(): boolean {
		return this.current?.whole ?? false;
	}

	/** Kept beyond what the others are expected to spend: two requests, fewer under a limit below 60. */
	margin(limit: number): number {
		return 2 * Math.min(1, limit / 60);
	}

	/**
	 * What to keep back for the others at `now`. For each window remembered, what they spent in it
	 * after the moment they had spent what they have now, or after `now` less a fortieth of the
	 * window (a client a little later than then), whichever came later; the most of those, and the
	 * margin until they have spent it. Before a window of theirs was seen whole, when they were on
	 * the key first: half the limit, until their count has not risen for a fortieth of the window
	 * (when it rose only while we sent back to back: others that pace as we do, and have stopped).
	 * And what they sent between our last two answers, while those are recent: as much is in flight.
	 */
	keep(now: number, limit: number): number {
		const t = this.current;
		if (!t) return 0;
		const late = t.length / 40;
		const at = now - t.end - late;
		const rests = this.memory.map((m) => m.total - Math.max(t.others, spentBy(m.points, at)));
		// Seen to have stopped: quiet for a while after sending in bulk beside ours (a twelfth of the limit).
		const bulk = t.refusedFirst || (t.points[0]?.[1] ?? 0) >= limit / 12 || racing(t.rises) > 0;
		const stopped = bulk && t.asWe && t.roseAt !== undefined && now - t.roseAt >= late;
		// Past our look, what they spent in this window is seen: the guess is over.
		if (this.memory.length === 0 && t.before && !stopped && !t.whole) {
			rests.push(Math.ceil(limit / 2) - t.others);
		}
		const rest = Math.max(0, ...rests);
		const others = rest > 0 || this.memory.some((m) => m.total > 0);
		return rest + (others ? this.margin(limit) : 0) + racing(t.rises);
	}
}

/**
 * How many requests of others are in flight while ours are, as far as their count between two of
 * our answers sent back to back shows it: the median (a burst between two is not a pace).
 */
function racing(rises: number[]): number {
	if (rises.length < 3) return 0;
	const sorted = [...rises].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

/** What the others had spent by `at` (ms before the reset): at our last answer before it. */
function spentBy(points: Array<[number, number]>, at: number): number {
	let spent = 0;
	for (const [when, others] of points) if (when <= at) spent = others;
	return spent;
}
