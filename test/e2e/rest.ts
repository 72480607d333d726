/* eslint-disable @n8n/community-nodes/no-restricted-globals -- a test's code, not the node's: n8n's rules for nodes do not apply (docs/development.md) */
/** n8n's REST calls the e2e tests make as the editor would: executions, Retry, webhooks. */

export interface Session {
	url: string;
	cookie: string;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	retryOf?: string | null;
	startedAt?: string | null;
	stoppedAt?: string | null;
}

/** An execution no longer running, new or waiting (n8n has written its end). */
export function hasEnded(execution: ExecutionSummary): boolean {
	return !['running', 'new', 'waiting'].includes(execution.status);
}

/**
 * Checks until `check` holds, or fails after `timeoutMs`: every 200 ms for the first 2 s, then
 * every tenth of the time waited so far, at most every second. Many waits are on n8n's polls and
 * timers, seconds to a minute away, and a check that asks n8n (its executions list) costs it CPU
 * time that the files running beside need; a wait so ends at most a tenth of its time (and a
 * second) after its condition came true.
 */
export async function until(
	what: string,
	check: () => boolean | Promise<boolean>,
	timeoutMs = 60_000,
): Promise<void> {
	const started = Date.now();
	const deadline = started + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		const pause = Math.min(1000, Math.max(200, (Date.now() - started) / 10));
		await new Promise((resolve) => setTimeout(resolve, pause));
	}
}

/**
 * That something does not happen: `check` stays true for `forMs` (polled every 250 ms). For what
 * must not follow an action (a second resume, a message sent twice), where no event marks that it
 * never will: `forMs` is longer than anything it rules out could be late.
 */
export async function holdsFor(
	what: string,
	check: () => boolean | Promise<boolean>,
	forMs = 3_000,
): Promise<void> {
	const deadline = Date.now() + forMs;
	for (;;) {
		if (!(await check())) throw new Error(`No longer true: ${what}`);
		if (Date.now() >= deadline) return;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** The executions of a workflow, newest first, as the Executions list shows them. */
export async function executions(
	session: Session,
	workflowId: string,
): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const response = await fetch(`${session.url}/rest/executions?filter=${filter}`, {
		headers: { cookie: session.cookie },
	});
	const body = (await response.json()) as { data: { results: ExecutionSummary[] } };
	return body.data.results;
}

/** n8n's Retry button: with the workflow as it was ("original") or as it is now ("current"). */
export async function retryExecution(
	session: Session,
	id: string,
	loadWorkflow: boolean,
): Promise<ExecutionSummary> {
	const response = await fetch(`${session.url}/rest/executions/${id}/retry`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
		body: JSON.stringify({ loadWorkflow }),
	});
	const body = (await response.json()) as { data?: ExecutionSummary };
	if (!body.data) throw new Error(`Retry answered ${response.status}: ${JSON.stringify(body)}`);
	return body.data;
}

/**
 * One POST to a published workflow's webhook. n8n answers readiness before it has registered the
 * published workflows' webhooks ("The requested webhook … is not registered" for a moment
 * after the start): that answer, on which nothing ran, is tried again for a minute.
 */
export async function postToWebhook(
	url: string,
	body: unknown,
	headers: Record<string, string>,
): Promise<Response> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', ...headers },
			body: JSON.stringify(body),
		});
		if (response.status !== 404 || Date.now() > deadline) return response;
		const text = await response.clone().text();
		if (!/is not registered/.test(text)) return response;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** POSTs to a workflow's webhook; resolves with the new executions once `count` of them ended. */
export async function triggerWebhook(
	session: Session,
	webhook: string,
	workflowId: string,
	bodies: unknown[],
	timeoutMs = 120_000,
	/** Headers of each delivery (a sender's delivery ID, signature, retry counter). */
	headers: Record<string, string> = {},
): Promise<ExecutionSummary[]> {
	const before = new Set((await executions(session, workflowId)).map((e) => e.id));
	const responses = await Promise.all(
		bodies.map(
			async (body) => await postToWebhook(`${session.url}/webhook/${webhook}`, body, headers),
		),
	);
	for (const response of responses)
		if (response.status !== 200)
			throw new Error(`Webhook answered ${response.status}: ${await response.text()}`);
	let ended: ExecutionSummary[] = [];
	await until(
		`${bodies.length} executions to end`,
		async () => {
			ended = (await executions(session, workflowId)).filter(
				(e) => !before.has(e.id) && hasEnded(e),
			);
			return ended.length >= bodies.length;
		},
		timeoutMs,
	);
	return ended;
}

/**
 * The editor's Execute workflow: a full manual run from the trigger, on its pinned data; resolves
 * with the execution once it has ended.
 */
export async function executeInEditor(
	session: Session,
	workflowId: string,
	trigger: string,
): Promise<ExecutionSummary> {
	const id = await startInEditor(session, workflowId, trigger);
	let ended: ExecutionSummary | undefined;
	await until(`execution ${id} to end`, async () => {
		ended = (await executions(session, workflowId)).find((e) => e.id === id);
		return ended !== undefined && hasEnded(ended);
	});
	return ended!;
}

/**
 * The editor's Publish: makes the workflow's current version live in the running n8n (one REST
 * call, where the CLI's `publish:workflow` boots n8n).
 */
export async function publishInEditor(session: Session, workflowId: string): Promise<void> {
	const got = await fetch(`${session.url}/rest/workflows/${workflowId}`, {
		headers: { cookie: session.cookie },
	});
	const { data } = (await got.json()) as { data: { versionId: string } };
	const response = await fetch(`${session.url}/rest/workflows/${workflowId}/activate`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
		body: JSON.stringify({ versionId: data.versionId }),
	});
	if (!response.ok)
		throw new Error(`Publish answered ${response.status}: ${await response.text()}`);
}

/** The editor's Unpublish: the workflow stops listening to its trigger. */
export async function unpublishInEditor(session: Session, workflowId: string): Promise<void> {
	const response = await fetch(`${session.url}/rest/workflows/${workflowId}/deactivate`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
		body: '{}',
	});
	if (!response.ok)
		throw new Error(`Unpublish answered ${response.status}: ${await response.text()}`);
}

/** The editor's Execute workflow without waiting: the new execution's id. */
export async function startInEditor(
	session: Session,
	workflowId: string,
	trigger: string,
	workflowData?: object,
): Promise<string> {
	const response = await fetch(`${session.url}/rest/workflows/${workflowId}/run`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'Content-Type': 'application/json', 'browser-id': 'e2e' },
		// n8n 1.x's editor sends the workflow it shows along; 2.x's runs the saved one.
		body: JSON.stringify({
			triggerToStartFrom: { name: trigger },
			...(workflowData && { workflowData }),
		}),
	});
	const body = (await response.json()) as { data?: { executionId?: string } };
	const id = body.data?.executionId;
	if (!id) throw new Error(`Execute workflow answered ${response.status}: ${JSON.stringify(body)}`);
	return id;
}

/** Whether n8n has the workflow (as the editor opens it). */
export async function workflowExists(session: Session, workflowId: string): Promise<boolean> {
	const response = await fetch(`${session.url}/rest/workflows/${workflowId}`, {
		headers: { cookie: session.cookie },
	});
	return response.ok;
}

/** Deletes a workflow as the editor does: archived first, then deleted. */
export async function deleteWorkflow(session: Session, workflowId: string): Promise<void> {
	const headers = {
		cookie: session.cookie,
		'Content-Type': 'application/json',
		'browser-id': 'e2e',
	};
	for (const [method, suffix] of [
		['POST', '/archive'],
		['DELETE', ''],
	]) {
		const response = await fetch(`${session.url}/rest/workflows/${workflowId}${suffix}`, {
			method,
			headers,
			body: method === 'POST' ? '{}' : undefined,
		});
		if (!response.ok)
			throw new Error(
				`${method} ${workflowId}${suffix} answered ${response.status}: ${await response.text()}`,
			);
	}
}
