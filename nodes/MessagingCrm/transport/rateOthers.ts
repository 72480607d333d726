/**
 * What the pacer believes about the key's other clients (the company's backend, another workflow,
 * other queue-mode workers), from the server's count minus its own, window by window. Pure
 * bookkeeping, no clock of its own: the caller passes the time in.
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
 * The other clients of the key, of two kinds, from the server's count minus our own at each of
 * our answers, window by window:
 *
 * - **Clients that send as we do** (other pacers: queue-mode workers, other processes) show as
 *   others' requests counted between two answers of ours sent back to back. How many they are is
 *   the second most counted in the last windows, back to back or by volume (their spending in
 *   parts like ours); each sends its fair part of the window at once (`fairPart`), so what they
 *   have still to send is their parts less what they spent (`keepPacers`). They have stopped when
 *   our requests meet none of theirs past the lateness allowed to a late one (`stopped`). Two
 *   pacers alone on the key may each wait for the other's part: now and then one request tells
 *   whether anyone still sends (`mayCheckStopped`, `keepBeside`).
 * - **Clients that spread their requests** (the company's backend, a co-tenant): what they spent
 *   beyond parts like ours, after the window's start. What they will still spend before the reset
 *   is read from the last window's profile (what they spent from this point on, read a little
 *   earlier for a client that comes late, a slice earlier once they are seen to spread), at
 *   least at their current rate when it is higher (`keep`, `keepSpread`); before a whole window
 *   was seen, at the rate they showed so far.
 *
 * What a refused client wanted is seen only when one of ours is refused before the reset
 * (`refused`): a client squeezed out after our last request shows only as less spending.
 */
export class Others {
	private current?: Tally;

	private prior?: Tally;

	/** How many sent back to back in the last window where ours were enough to count them. */
	private lastTogether?: number;

	/** A request that looks (see `mayAsk`, `mayCheckStopped`) is out since then, until an answer. */
	private askedAt?: number;

	/**
	 * How many clients shared the key in the last windows, counted both ways: the second most of
	 * them and of the count as it stands is taken (see `pacerCount`), so that a pacer that once took
	 * more than its part (and so counts fewer by volume) does not keep doing so, while one count too
	 * high (answers that came late met more of the others' requests between them) leaves no slots
	 * unused. A client that stops is forgotten after that many windows; within the window, the rest
	 * is ours once it is seen to have stopped.
	 */
	private counted: number[] = [];

	/** Our first answer was a 429: others spent the window before we sent (see `refusedFirst`). */
	private spentBefore = false;

	/**
	 * Our first request on the key was refused: the others took the window whole before we came.
	 * Until a window of ours is seen, we take half of one at once, as one of two clients: else a
	 * client alone on the key before us (it never sees a request of ours refused) takes the next
	 * window whole again, and what it leaves us reads as many clients for windows.
	 */
	refusedFirst(): void {
		if (!this.prior) this.spentBefore = true;
	}

	/** A new window began at `start` (this host's clock); the last one becomes the prior. */
	begin(start: number, length: number): void {
		const last = this.current;
		if (last && last.ours > 0) this.prior = last;
		// After a pause of more than a window, what the last windows said of the others is old.
		if (last && (last.lastAt ?? last.start) < start - length) {
			this.prior = undefined;
			this.lastTogether = undefined;
			this.counted = [];
		}
		this.current = tally(start, length);
		if (this.prior) this.spentBefore = false;
		// A window with too few answers of ours back to back to count goes by the last that had.
		if (this.prior && this.prior.pairs >= 2) this.lastTogether = concurrency(this.prior);
		// The window that just ended counts once (a window without answers of ours, not at all).
		const p = this.prior;
		if (p && p === last) {
			const byVolume = 1 + p.others / p.ours;
			this.counted.push(Math.round(Math.max(byVolume, this.lastTogether ?? 1)));
			if (this.counted.length > COUNT_MEMORY) this.counted.shift();
		}
	}

	/** No window yet, or the server does not count. */
	forget(): void {
		this.current = undefined;
	}

	/**
	 * An answer of ours in this window: the others had spent `others`, `remaining` was left; up to
	 * `unsure` more, when our requests still out (counted as spent) had not yet reached the server.
	 */
	answer(now: number, others: number, remaining: number, unsure = 0): void {
		this.askedAt = undefined;
		const t = this.current;
		if (!t) return;
		if (t.lastAt !== undefined) {
			const gap = now - t.lastAt;
			const rose = others > t.others;
			t.gapMin = Math.min(t.gapMin, gap);
			// Back to back: no longer apart than a round trip and a little (not after a wait).
			if (gap < Math.max(2 * t.gapMin, t.gapMin + 10)) {
				t.pairs++;
				t.between += Math.max(0, others - t.others);
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

	/**
	 * One of ours was refused before the reset: the others spent all that was left (`others`, all
	 * but ours) by `now`, and what they wanted beyond it shows only as their rate (see `spentBy`).
	 */
	refused(now: number, others: number): void {
		this.askedAt = undefined;
		const t = this.current;
		if (!t) return;
		record(t, now, others, 0);
	}

	/**
	 * Our fair part of this window, in requests; 0 before a whole window was seen (then what the
	 * others are seen to spend decides alone).
	 *
	 * - Beside clients that send back to back as we do (other pacers): the limit, less what
	 *   clients that spread their requests spend, over as many as send together, whole; what the
	 *   whole parts leave over goes one each to the clients that came first in the window (as many
	 *   requests before our first as slots left over), so that the window is used up.
	 * - Beside clients that spread their requests only: one over the clients they count for by
	 *   what they would have spent over the whole window (half the limit at most); once they are
	 *   seen to spread them (our requests back to back met none of theirs), half of that (a quarter
	 *   at most: they cannot wait as we can, and the rest comes from what they leave).
	 */
	fairPart(limit: number): number {
		const p = this.prior;
		if (!p) return this.spentBefore ? Math.floor(limit / 2) : 0;
		const together = this.together();
		if (together !== undefined && together >= 1.5) {
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

	/**
	 * Clients that send back to back as we do were seen in this window or the last, our own last
	 * three back-to-back requests met none of them, and an answer of ours past the lateness allowed
	 * to a client still met none: they have sent their part (or stopped).
	 */
	private stopped(): boolean {
		const t = this.current;
		if (!t || !this.quietSoFar() || t.lastAt === undefined) return false;
		// A client whose probe comes late has not sent yet: only an answer past the lateness allowed
		// to it, still meeting nobody, tells.
		return t.lastAt - t.start >= slack(t);
	}

	/**
	 * Whether a request sent now would tell that the clients sending as we do have stopped: our
	 * last back-to-back requests met none of them, the lateness allowed to a late one has passed,
	 * and no answer of ours came since.
	 */
	mayCheckStopped(now: number): boolean {
		const t = this.current;
		const together = this.together();
		if (!t || t.lastAt === undefined || this.askedAt !== undefined) return false;
		if (together === undefined || together < 1.5 || now - t.start < slack(t)) return false;
		if (this.quietSoFar()) return t.lastAt - t.start < slack(t);
		// Two pacers and nobody else (two queue-mode workers): each may be waiting for the other's
		// part, one count too high. While neither sent and there is room for a request of each, now
		// and then one request looks (see keepBeside). Not beside more: so many requests, each from
		// an answer older than the others' last, are refused.
		if (!this.prior || this.pacerCount(together) > 2 || this.spreading(together) > 0) return false;
		return !t.calm && (t.lastRemaining ?? 0) >= 2 && now - t.lastAt >= t.length / 20;
	}

	/** Clients that send as we do share the key, and our last three back-to-back requests met none. */
	private quietSoFar(): boolean {
		const together = this.together();
		return together !== undefined && together >= 1.5 && (this.current?.quiet ?? 0) >= 3;
	}

	/**
	 * What clients that spread their requests are expected to spend from `from` until `resetAt`, a
	 * tenth more and the margin: what is kept back once the clients that send as we do have sent.
	 */
	private keepSpread(from: number, resetAt: number, limit: number): number {
		const p = this.prior;
		const spreading = p ? this.spreading(this.together() ?? 1) : 0;
		if (!p || spreading <= 0) return 0;
		return (1.1 * spreading * Math.max(0, resetAt - from)) / p.length + margin(limit);
	}

	/**
	 * What the clients that send as we do have still to send of their parts in this window, as
	 * far as our last answer showed (nothing once they were seen to stop).
	 */
	private keepPacers(limit: number): number {
		const t = this.current;
		const together = this.together();
		if (!t || !this.prior || together === undefined || this.stopped()) return 0;
		const clients = this.pacerCount(together);
		return Math.max(0, ((clients - 1) / clients) * this.forPacers(limit) - t.others);
	}

	/**
	 * What is kept back beside clients that send as we do: what they have still to send of their
	 * parts (`keepPacers`) and what clients that spread their requests spend from `from` until
	 * `resetAt` (`keepSpread`). Once nobody sent while we waited (`Tally.calm`), they may be
	 * waiting for us as we wait for them (their count of clients, or ours, too high): at most what
	 * was left at our last answer but our part of it, as one of that many clients; then, when our
	 * requests back to back meet none of theirs, all of it (see `stopped`).
	 */
	keepBeside(from: number, resetAt: number, limit: number): number {
		const spread = this.keepSpread(from, resetAt, limit);
		const parts = this.keepPacers(limit);
		const t = this.current;
		if (!t?.calm || !this.prior) return parts + spread;
		const clients = this.pacerCount(this.together() ?? 1);
		return spread + Math.min(parts, ((clients - 1) / clients) * (t.lastRemaining ?? 0));
	}

	/** Clients that send back to back as we do share the key (other pacers). */
	pacers(): boolean {
		return (this.together() ?? 1) >= 1.5 && !!this.prior;
	}

	/** A request that looks went out (no other until an answer; see `mayAsk`), or ended unanswered. */
	asking(now?: number): void {
		this.askedAt = now;
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
	 * How many clients send as we do, ourselves included: as many as were seen sending back to back
	 * with us, or as the others' spending in the last window (beyond clients that spread their
	 * requests) counts in parts like ours, whichever is more (pacers that do not start together are
	 * not all seen back to back; a pacer that took more than its part once counts fewer by volume);
	 * over the last windows, the second most (see `counted`).
	 */
	private pacerCount(together: number): number {
		const p = this.prior as Tally;
		const byVolume = 1 + Math.max(0, p.others - this.spreading(together)) / Math.max(1, p.ours);
		const now = Math.max(Math.round(together), Math.round(byVolume));
		// The last window counts twice, as counted at its end and as it stands with this window's
		// pairs: a count that only this window's answers (late ones) raise is not taken.
		const sorted = [...this.counted, now].sort((a, b) => b - a);
		return Math.min(MAX_CLIENTS, sorted[Math.min(1, sorted.length - 1)]);
	}

	/** How many send back to back, ourselves included, in this window or the last, if seen. */
	private together(): number | undefined {
		const seen = [this.prior, this.current].filter((t): t is Tally => !!t && t.pairs >= 2);
		return seen.length ? Math.max(...seen.map(concurrency)) : this.lastTogether;
	}

	/**
	 * What clients that spread their requests spent over the last window, as far as our answers
	 * saw: the others' spending beyond as much as ours per client sending with us, and at most
	 * what they spent after the start of the window, at that rate.
	 */
	private spreading(together: number): number {
		const p = this.prior as Tally;
		const beyond = p.others - (together - 1) * p.ours;
		return Math.max(0, Math.min(beyond, spreadingAfterStart(p)));
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
	 * What to keep back for the others from the server's Remaining at our last answer: what they
	 * are expected to spend from that answer until the reset (`resetAt`), a tenth more of what is
	 * still ahead of `now` for the unevenness of real clients, and two requests (fewer under a
	 * limit below 60). `asked`: as if they had spent nothing since our last answer (what a request
	 * sent now would find out).
	 */
	keep(now: number, resetAt: number, limit: number, asked = false): number {
		const t = this.current;
		if (!t) return 0;
		// Without a last window, the others' rate since our last answer is as good as any answer.
		const from = asked && this.prior ? now : (t.lastAt ?? now);
		const ahead = this.expected(now, now, resetAt);
		return this.expected(from, now, resetAt) + 0.1 * ahead + margin(limit);
	}

	/** Whether it is time to look what the others spent since our last answer: a twentieth of the window on. */
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
		// Without a last window to go by, the others go on at the rate they showed so far, counting
		// one more (their next request may be about to come: one request seen tells little).
		if (!p) return ((t.others + 1) / Math.max(now - t.start, t.length / 120)) * until;
		// As in the last window from there on; a client whose probe comes late still finds its
		// part, so the last window is read a little earlier than where this one stands (a slice
		// earlier once the others are seen to spread their requests: none of them probes).
		const late = this.together() === undefined ? slack(t) : t.length / PROFILE_SLOTS;
		const offset = from - t.start;
		const total = spentBy(p, p.length);
		const asLastTime = total - spentBy(p, offset - late);
		// Beyond what they spent by this point of the last window, at the rate of the excess.
		const excess = t.others - spentBy(p, offset + late);
		const elapsed = Math.max((t.lastAt ?? now) - t.start, 500);
		return Math.max(0, asLastTime, (Math.max(0, excess) / elapsed) * until);
	}
}
