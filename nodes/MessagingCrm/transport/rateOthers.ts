/**
 * What the pacer believes about the key's other clients, from the server's count minus its own,
 * window by window. Pure bookkeeping: the caller passes the time in.
 */
import type { Tally } from './rateTally';
import {
	concurrency,
	demand,
	margin,
	PROFILE_SLOTS,
	record,
	slack,
	spentBy,
	spreadingAfterStart,
	tally,
} from './rateTally';

/** How many windows the count of clients looks back on. */
const COUNT_MEMORY = 4;

/** At most this many clients are assumed to share the key. */
const MAX_CLIENTS = 16;

/**
 * The key's other clients, of two kinds. **Clients that send as we do** (other pacers: queue-mode
 * workers, other processes; others' requests counted between two answers of ours sent back to
 * back) each send their fair part at once (`fairPart`); what they have still to send is kept
 * (`keepPacers`) until they are seen to have stopped (`stopped`, `mayCheckStopped`). **Any other
 * client** (the company's backend, a co-tenant, spreading its requests or sending them at once):
 * what it spent in the last window seen whole is kept in full (`keepInFull`); before one was
 * seen, what it is expected to spend at the rate it showed (`keep`).
 */
export class Others {
	private current?: Tally;

	private prior?: Tally;

	/** How many sent back to back in the last window where ours were enough to count them. */
	private lastTogether?: number;

	/** A request that asks (see `mayAsk`, `mayCheckStopped`) is out since then, until an answer. */
	private askedAt?: number;

	/** How many clients shared the key in the last windows, back to back or by volume (`pacerCount`). */
	private counted: number[] = [];

	/** What the others spent in the last window seen whole (see `wholeOf`), and windows since. */
	private wantedLast?: number;
	private wantedAge = 0;

	/** Our first answer was a 429: others spent the window before we sent (see `refusedFirst`). */
	private spentBefore = false;

	/** Our first request was refused: until a window of ours is seen, half of one is ours. */
	refusedFirst(): void {
		if (!this.prior) this.spentBefore = true;
	}

	/** A new window began at `start` (this host's clock); the last one becomes the prior. */
	begin(start: number, length: number, limit: number): void {
		const last = this.current;
		if (last && last.ours > 0) this.prior = last;
		const whole = last && wholeOf(last, limit);
		this.rememberWhole(whole);
		// After a pause of more than a window, what the last windows said is old.
		if (last && (last.lastAt ?? last.start) < start - length) {
			this.prior = undefined;
			this.lastTogether = undefined;
			this.wantedLast = undefined;
			this.counted = [];
		}
		this.current = tally(start, length);
		if (this.prior) this.spentBefore = false;
		if (this.prior && this.prior.pairs >= 2) this.lastTogether = concurrency(this.prior);
		const p = this.prior;
		if (p && p === last) {
			const byVolume = 1 + p.others / p.ours;
			this.counted.push(Math.round(Math.max(byVolume, this.lastTogether ?? 1)));
			if (this.counted.length > COUNT_MEMORY) this.counted.shift();
		}
	}

	/** What a window seen whole held; two windows more without one seen whole, it is old. */
	private rememberWhole(whole: number | undefined): void {
		if (whole !== undefined) [this.wantedLast, this.wantedAge] = [whole, 0];
		else if (++this.wantedAge > 2) this.wantedLast = undefined;
	}

	/** No window yet, or the server does not count. */
	forget(): void {
		this.current = undefined;
	}

	/**
	 * An answer of ours in this window: the others had spent `others`, `remaining` was left; up to
	 * `unsure` more, when our requests still out (counted as spent) had not yet reached the server.
	 */
	answer(now: number, others: number, remaining: number, unsure = 0, late = false): void {
		this.askedAt = undefined;
		const t = this.current;
		if (!t) return;
		if (late) t.late = true;
		if (t.lastAt !== undefined) {
			const gap = now - t.lastAt;
			const rose = others > t.others;
			t.gapMin = Math.min(t.gapMin, gap);
			// Back to back: no longer apart than a round trip and a little (not after a wait).
			if (gap < Math.max(2 * t.gapMin, t.gapMin + 10)) {
				t.pairs++;
				t.between += Math.max(0, others - t.others);
				t.outs += 1 + unsure;
				t.quiet = rose ? 0 : t.quiet + 1;
				if (rose) t.calm = false;
			} else {
				// After a wait: someone sent meanwhile, or (nothing of ours out then or now) nobody did.
				if (rose) t.quiet = 0;
				t.calm = !rose && t.unsure === 0 && unsure === 0;
			}
		}
		t.unsure = unsure;
		t.ours++;
		t.before ??= others;
		record(t, now, others, remaining);
	}

	/** One of ours was refused before the reset: the others spent all but ours (`others`). */
	refused(now: number, others: number, late = false): void {
		this.askedAt = undefined;
		const t = this.current;
		if (!t) return;
		t.full = true;
		if (late) t.late = true;
		// They spent it at some time since our last answer: counted there, not as spending now.
		record(t, t.lastAt ?? now, others, 0);
		t.lastAt = now;
	}

	/**
	 * Our fair part of this window (0 before one was seen): beside pacers, the limit less what other
	 * clients spend, over the pacers; else one over the clients the others' spending counts for.
	 */
	fairPart(limit: number): number {
		const p = this.prior;
		if (!p) return this.spentBefore ? Math.floor(limit / 2) : 0;
		const together = this.together();
		if (together !== undefined && this.asWe(together)) {
			const clients = this.pacerCount(together);
			const forPacers = this.forPacers(limit);
			const whole = Math.floor(forPacers / clients);
			const over = Math.floor(forPacers) - clients * whole;
			return whole + ((this.current?.before ?? Infinity) < over ? 1 : 0);
		}
		const clients = Math.max(2, 1 + demand(p) / Math.max(1, p.ours));
		return Math.floor(
			limit / Math.min(MAX_CLIENTS, together === undefined ? clients : 2 * clients),
		);
	}

	/** Pacers share the key, our last back-to-back requests met none, nor did an answer past `slack`. */
	private stopped(): boolean {
		const t = this.current;
		return !!t && this.quietSoFar() && answeredLate(t);
	}

	/** Whether a request sent now would tell that the pacers beside us have stopped (see `stopped`). */
	mayCheckStopped(now: number, limit: number): boolean {
		const t = this.current;
		const together = this.together();
		if (!t || t.lastAt === undefined || this.askedAt !== undefined) return false;
		if (together === undefined || !this.asWe(together) || now - t.start < slack(t)) return false;
		if (this.quietSoFar()) return !answeredLate(t);
		// Two pacers alone may each wait for the other's part: now and then one request asks.
		if (!this.prior || this.spreading(together) > 0) return false;
		// Beside more, once under half the parts of the others we count had come by our last answer.
		const clients = this.pacerCount(together);
		if (clients > 2 && 2 * t.others >= (clients - 1) * this.fairPart(limit)) return false;
		return !t.calm && (t.lastRemaining ?? 0) >= 2 && now - t.lastAt >= t.length / 20;
	}

	/** Clients that send as we do share the key, and our last three back-to-back requests met none. */
	private quietSoFar(): boolean {
		return this.asWe() && (this.current?.quiet ?? 0) >= 3;
	}

	/**
	 * Rule 1: what the others will still spend in this window, kept in full until the reset: what
	 * they spent in the last window seen whole (`wholeOf`) less what they spent in this one, and the
	 * margin. Before one was seen whole, `expected`; in a first window they began, at least half.
	 */
	keepInFull(limit: number, expected: number): number {
		const t = this.current;
		if (!t) return 0;
		const wanted = this.wantedLast ?? (t.late ? seenWhole(t) : undefined);
		if (wanted === undefined) {
			// They were on the key before us: whatever they do later in the window, half is theirs.
			const first = !this.prior && ((t.before ?? 0) > 0 || this.spentBefore);
			const half = Math.max(0, Math.ceil(limit / 2) - t.others) + margin(limit);
			return first ? Math.max(expected, half) : expected;
		}
		return Math.max(0, wanted - t.others) + (Math.max(wanted, t.others) > 0 ? margin(limit) : 0);
	}

	/** A window of the others' was seen whole (see `wholeOf`): what they spend is kept in full. */
	seenWhole(): boolean {
		return this.wantedLast !== undefined || this.current?.late === true;
	}

	/** What clients that spread their requests spend from `from` until `resetAt`, a tenth more and the margin. */
	private keepSpread(from: number, resetAt: number, limit: number): number {
		const p = this.prior;
		const spreading = p ? this.spreading(this.together() ?? 1) : 0;
		if (!p || spreading <= 0) return 0;
		return (1.1 * spreading * Math.max(0, resetAt - from)) / p.length + margin(limit);
	}

	/** What the pacers beside us have still to send of their parts (nothing once they stopped). */
	private keepPacers(limit: number): number {
		const t = this.current;
		const together = this.together();
		if (!t || !this.prior || together === undefined || this.stopped()) return 0;
		// Answered past the lateness allowed, those that sent no part of this window are not counted.
		const late = answeredLate(t) && this.spreading(together) <= 0;
		const sent = late ? 1 + Math.ceil(t.others / Math.max(1, this.fairPart(limit))) : MAX_CLIENTS;
		const clients = Math.min(this.pacerCount(together), sent);
		return Math.max(0, ((clients - 1) / clients) * this.forPacers(limit) - t.others);
	}

	/**
	 * Kept beside pacers: their parts still to send and what spreading clients spend until the
	 * reset; once nobody sent while we waited (`Tally.calm`) past the lateness allowed to another
	 * pacer (a bursting client comes early in the window), at most what was left less our part.
	 */
	keepBeside(from: number, resetAt: number, limit: number): number {
		const spread = this.keepSpread(from, resetAt, limit);
		const parts = this.keepPacers(limit);
		const t = this.current;
		if (!t?.calm || !this.prior || !answeredLate(t)) return parts + spread;
		const clients = this.pacerCount(this.together() ?? 1);
		return spread + Math.min(parts, ((clients - 1) / clients) * (t.lastRemaining ?? 0));
	}

	/** Whether `keepInFull` (not the pacers' rules) decides in this window, as of now. */
	decidedInFull(inFull: boolean): void {
		if (this.current) this.current.keptInFull = inFull;
	}

	/** Clients that send back to back as we do were seen, in this window or the last. */
	sendingAsWe(): boolean {
		return this.asWe();
	}

	/** Clients that send back to back as we do share the key (other pacers). */
	pacers(): boolean {
		return this.asWe() && !!this.prior;
	}

	/** A request that asks went out (no other until an answer), or ended unanswered. */
	asking(now?: number): void {
		this.askedAt = now;
	}

	/** An answer of ours in this window came after the look (see ServerWindow.lookAt). */
	get late(): boolean {
		return this.current?.late ?? false;
	}

	/** When our last answer in this window came. */
	get answeredAt(): number | undefined {
		return this.current?.lastAt;
	}

	/** The limit less what clients that spread their requests are expected to spend in a window. */
	private forPacers(limit: number): number {
		const spreading = this.spreading(this.together() ?? 1);
		return limit - (spreading > 0 ? 1.1 * spreading + margin(limit) : 0);
	}

	/**
	 * How many pacers share the key, ourselves included: seen back to back, or the others' spending
	 * counted in parts like ours, whichever is more; over the last windows, the second most.
	 */
	private pacerCount(together: number): number {
		const p = this.prior as Tally;
		const byVolume = 1 + Math.max(0, p.others - this.spreading(together)) / Math.max(1, p.ours);
		const now = Math.max(Math.round(together), Math.round(byVolume));
		const sorted = [...this.counted, now].sort((a, b) => b - a);
		return Math.min(MAX_CLIENTS, sorted[Math.min(1, sorted.length - 1)]);
	}

	/** Others send back to back at least half as fast as one of our executions (we may run several). */
	private asWe(together = this.together()): boolean {
		const outs = Math.max(1, ...this.seen().map((t) => t.outs / t.pairs));
		return together !== undefined && together >= 1 + 0.5 / outs;
	}

	/** How many send back to back, ourselves included, in this window or the last, if seen. */
	private together(): number | undefined {
		return this.seen().length ? Math.max(...this.seen().map(concurrency)) : this.lastTogether;
	}

	/** This window and the last, if ours came back to back often enough to count the others. */
	private seen(): Tally[] {
		return [this.prior, this.current].filter((t): t is Tally => !!t && t.pairs >= 2);
	}

	/** What spreading clients spent over the last window: beyond the pacers' parts, after its start. */
	private spreading(together: number): number {
		const p = this.prior as Tally;
		const beyond = p.others - (together - 1) * p.ours;
		// Each other pacer may send one look late in the window (see ServerWindow.lookAt).
		const looks = Math.max(1, Math.round(together) - 1);
		return Math.max(0, Math.min(beyond, spreadingAfterStart(p)) - looks);
	}

	/** Our answers in this window. */
	get ours(): number {
		return this.current?.ours ?? 0;
	}

	/** No other client seen on the key, in this window or the last. */
	alone(): boolean {
		return (this.current?.others ?? 0) === 0 && (this.prior?.others ?? 0) === 0;
	}

	/**
	 * What the others are expected to spend from our last answer until the reset, a tenth more and
	 * the margin; `asked`: from now (what a request sent now would find out).
	 */
	keep(now: number, resetAt: number, limit: number, asked = false): number {
		const t = this.current;
		if (!t) return 0;
		const from = asked && this.prior ? now : (t.lastAt ?? now);
		const ahead = this.expected(now, now, resetAt);
		return this.expected(from, now, resetAt) + 0.1 * ahead + margin(limit);
	}

	/**
	 * Held back: what the others spent in a window seen whole a window or more ago is kept in full
	 * (`keepInFull`), our last window held two of ours or fewer, and no answer of ours in this
	 * one came after the look (`late`), none out asking. One request at the look then sees the
	 * window whole: in the next, a co-tenant still there is kept again, others that stopped are
	 * seen gone.
	 */
	heldBack(): boolean {
		if (this.wantedLast === undefined || this.wantedAge < 1 || this.askedAt !== undefined)
			return false;
		return (this.prior?.ours ?? Infinity) <= 2 && !this.late;
	}

	/** Whether it is time to ask what the others spent since our last answer: a twentieth of the window on. */
	mayAsk(now: number): boolean {
		const t = this.current;
		if (!t || !this.prior || t.lastAt === undefined || this.askedAt !== undefined) return false;
		return now - t.lastAt >= t.length / 20;
	}

	/** What the others are expected to spend from `from` until `resetAt` (this host's clock). */
	private expected(from: number, now: number, resetAt: number): number {
		const t = this.current as Tally;
		const until = Math.max(0, resetAt - from);
		const p = this.prior;
		// Without a last window: at the rate they showed so far, one more request counted.
		if (!p) return ((t.others + 1) / Math.max(now - t.start, t.length / 120)) * until;
		// As in the last window from there on, read a little earlier for a client that comes late.
		const late = this.together() === undefined ? slack(t) : t.length / PROFILE_SLOTS;
		const offset = from - t.start;
		const total = spentBy(p, p.length);
		const asLastTime = total - spentBy(p, offset - late);
		const excess = t.others - spentBy(p, offset + late);
		const elapsed = Math.max((t.lastAt ?? now) - t.start, 500);
		return Math.max(0, asLastTime, (Math.max(0, excess) / elapsed) * until);
	}
}

/**
 * What the others spent in a window kept in full, when our look (ServerWindow.lookAt) saw it:
 * until then, at that rate to its end; refused, a quarter of the limit more, at least half.
 */
function wholeOf(t: Tally, limit: number): number | undefined {
	if (!t.late || !t.keptInFull) return undefined;
	if (t.full) return Math.max(t.others + Math.ceil(limit / 4), Math.ceil(limit / 2));
	return seenWhole(t);
}

/** What the others spent in a window until our last answer, at that rate until its end. */
function seenWhole(t: Tally): number {
	const seen = (t.lastAt ?? t.start) - t.start;
	return Math.round(seen > 0 ? (t.others * Math.max(seen, t.length)) / seen : t.others);
}

/** Our last answer in a window came past the lateness allowed to another pacer (see `slack`). */
function answeredLate(t: Tally): boolean {
	return (t.lastAt ?? t.start) - t.start >= slack(t);
}
