/** Response shapes of the API (api-spec: Resources and their fields), and what a deal's status means. */

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

/** A deal status that is won or lost; any other is active. */
export function isClosed(status: unknown): boolean {
	return status === 'won' || status === 'lost';
}
