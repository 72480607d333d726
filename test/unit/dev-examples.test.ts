/** `npm run dev` on a home made before an example was added imports that example, and only it. */
import { examplesToImport, readyText, recordedExamples } from '../dev/examples';

const examples = ['mcrmWelcomeFlow01', 'mcrmTemplateFlow1', 'mcrmMcpServer001'].map((id) => ({
	id,
}));
const ids = (list: Array<{ id: string }>) => list.map((e) => e.id);

describe('the examples a dev home lacks', () => {
	it('a home that lists its examples gets the ones added since, without asking n8n', async () => {
		const ask = jest.fn(async () => await Promise.resolve([]));
		const ready = readyText(['mcrmWelcomeFlow01', 'mcrmTemplateFlow1']);
		expect(ids(await examplesToImport(examples, ready, ask))).toEqual(['mcrmMcpServer001']);
		expect(ask).not.toHaveBeenCalled();
		expect(await examplesToImport(examples, readyText(ids(examples)), ask)).toEqual([]);
	});

	it('an example the builder deleted is not brought back', async () => {
		const ready = readyText(ids(examples));
		expect(await examplesToImport(examples, ready, async () => await Promise.resolve([]))).toEqual(
			[],
		);
	});

	it('a home made before the list (a date in its ready file) asks n8n which it has', async () => {
		const inN8n = async () => await Promise.resolve(['mcrmWelcomeFlow01', 'someOtherWorkflow']);
		expect(ids(await examplesToImport(examples, '2026-11-20T10:00:00.000Z', inN8n))).toEqual([
			'mcrmTemplateFlow1',
			'mcrmMcpServer001',
		]);
	});

	it('reads only a list of IDs as a record', () => {
		expect(recordedExamples(readyText(['b', 'a']))).toEqual(['a', 'b']);
		for (const text of ['', '2026-11-20T10:00:00.000Z', '{"examples": "all"}', '{"examples": [1]}'])
			expect(recordedExamples(text)).toBeUndefined();
	});
});
