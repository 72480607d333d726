/**
 * One rate window as this process saw it (the others' spending at each of our answers), and what
 * can be read from it, for the pacer's picture of the others (rateOthers.ts).
 */

/** How many slices of a window the others' spending is remembered in. */
export const PROFILE_SLOTS = 32;

/** One window as this process saw it. */
export interface Tally {
	/** When the window began (this host's clock), and its length as known then. */
	start: number;
	length: number;
	/** Our answers in it. */
	ours: number;
	/** What the others had spent in it at our last answer, and at our first. */
	others: number;
	before?: number;
	/** When our last answer came, and what the server had left then. */
	lastAt?: number;
	lastRemaining?: number;
	/** The most the others had spent by the end of each slice of the window. */
	profile: number[];
	/** Back-to-back answers of ours, and the others' requests counted between them. */
	pairs: number;
	between: number;
	/** Over those pairs, our requests out at the second answer, this one included. */
	outs: number;
	/** The last back-to-back answers of ours in a row that met no other request. */
	quiet: number;
	/** Our last answer came after a wait over which the others sent nothing (see Others.answer). */
	calm: boolean;
	/** At our last answer, how many of our requests were out (the server may not have counted them). */
	unsure: number;
	/** The shortest time between two answers of ours (a round trip, as near as we know). */
	gapMin: number;
	/** An answer of ours came after the look (see ServerWindow.lookAt): the others' spending was seen to the window's end. */
	late: boolean;
	/** One of ours was refused before the reset: the others may have wanted more than they got. */
	full: boolean;
	/** What the others spent was kept back in full here (Others.keepInFull), unless pacers decided. */
	keptInFull: boolean;
}

/** A window that began at `start` (this host's clock), nothing seen in it yet. */
export function tally(start: number, length: number): Tally {
	return {
		start,
		length,
		ours: 0,
		others: 0,
		profile: Array.from({ length: PROFILE_SLOTS }, () => 0),
		pairs: 0,
		between: 0,
		outs: 0,
		quiet: 0,
		calm: false,
		unsure: 0,
		gapMin: Infinity,
		late: false,
		full: false,
		keptInFull: true,
	};
}

/** Our answer at `now`: the others had spent `others`, `remaining` was left; in its profile slice. */
export function record(t: Tally, now: number, others: number, remaining: number): void {
	t.others = Math.max(t.others, others);
	t.lastAt = now;
	t.lastRemaining = remaining;
	const slot = Math.floor(((now - t.start) / t.length) * PROFILE_SLOTS);
	const i = Math.min(PROFILE_SLOTS - 1, Math.max(0, slot));
	t.profile[i] = Math.max(t.profile[i], t.others);
}

/**
 * What the others had spent (or wanted to) by `offset` into a window: the slices our answers saw;
 * after our last answer, at their rate (at most what was left, unless nothing was), or all that
 * was left when our answers covered under a quarter of the window.
 */
export function spentBy(t: Tally, offset: number): number {
	const seenUntil = (t.lastAt ?? t.start) - t.start;
	const slots = Math.min(PROFILE_SLOTS, Math.floor((offset / t.length) * PROFILE_SLOTS));
	let most = 0;
	for (let i = 0; i < slots; i++) most = Math.max(most, t.profile[i]);
	if (offset <= seenUntil || seenUntil >= t.length) return most;
	const after = Math.min(offset, t.length) - seenUntil;
	const left = t.lastRemaining ?? 0;
	if (seenUntil >= t.length / 4) {
		const rate = (t.others / seenUntil) * after;
		return t.others + (left < 1 ? rate : Math.min(left, rate));
	}
	return t.others + (left * after) / (t.length - seenUntil);
}

/** What the others would have spent over a whole window at the rate they showed (refused the rest). */
export function demand(t: Tally): number {
	const seenUntil = (t.lastAt ?? t.start) - t.start;
	if ((t.lastRemaining ?? 0) > 1 || seenUntil >= t.length) return spentBy(t, t.length);
	return (t.others * t.length) / Math.max(seenUntil, t.length / PROFILE_SLOTS);
}

/** How late another client may come in a window and still be expected: a tenth of it, 1.5 s at least. */
export function slack(t: Tally): number {
	return Math.max(t.length / 10, 1500);
}

/** One plus the others' requests counted between two answers of ours sent back to back. */
export function concurrency(t: Tally): number {
	return t.pairs >= 2 ? 1 + t.between / t.pairs : 1;
}

/** Requests kept back beyond the others' expected spending: two, fewer under a limit below 60. */
export function margin(limit: number): number {
	return 2 * Math.min(1, limit / 60);
}

/** What the others spent after `slack` until our last answer, at that rate over the whole window. */
export function spreadingAfterStart(t: Tally): number {
	const late = slack(t);
	const seenUntil = (t.lastAt ?? t.start) - t.start;
	if (seenUntil <= late) return 0;
	return ((t.others - spentBy(t, late)) * t.length) / (seenUntil - late);
}
