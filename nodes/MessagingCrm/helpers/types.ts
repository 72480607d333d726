/** Response shapes of the API (api-spec: Resources and their fields). */

export interface Agent {
	id: string;
	name: string;
	is_active: boolean;
	messengers?: string[];
}

export interface Stage {
	id: string;
	name: string;
	stage_code: string | null;
	position: number;
}

export interface Pipeline {
	id: string;
	name: string;
	agent_id: string;
	is_default: boolean;
	stages: Stage[];
}

/** The largest page of a pool's codes the API gives (`limit` 1 to 500). */
export const CODES_PAGE_MAX = 500;

/** A deal status that is won or lost; any other is active. */
export function isClosed(status: unknown): boolean {
	return status === 'won' || status === 'lost';
}
