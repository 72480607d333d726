import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * Messenger types as the sandbox names them (the API spec does not list them), under the names
 * people use for them. An expression can send any other value the real API knows.
 */
export const MESSENGER_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Facebook Messenger', value: 'facebook' },
	{ name: 'Instagram Direct', value: 'instagram' },
	{ name: 'MAX', value: 'max', description: 'The MAX messenger (max.ru)' },
	{ name: 'Telegram Bot', value: 'telegram', description: 'A chat with the company bot' },
	{
		name: 'Telegram Personal Account',
		value: 'telegram_personal',
		description: "A chat from an employee's own Telegram account",
	},
	{ name: 'VK', value: 'vk', description: 'VKontakte messages' },
	{ name: 'Website Chat Widget', value: 'web_widget' },
	{
		name: 'WhatsApp Business (Cloud API)',
		value: 'whatsapp',
		description: 'The official business account: templates outside the 24-hour window',
	},
	{
		name: 'WhatsApp Personal Account',
		value: 'whatsapp_personal',
		description: 'A WhatsApp account on a phone, connected to the CRM',
	},
];

/** The Messenger dropdown's value that lets Send pick the messenger (actions/message/bestAvailable.ts). */
export const BEST_AVAILABLE = 'bestAvailable';

/** The Messenger dropdown's first choice. */
export const BEST_AVAILABLE_CHOICE: INodePropertyOptions = {
	name: 'Best Available',
	value: BEST_AVAILABLE,
	description:
		"The first of the customer's messengers that takes the message now, in the order of 'Try Messengers In Order'",
};

/** A messenger type's name as people say it; an unknown type as the API gave it. */
export function messengerName(type: unknown): string {
	const known = MESSENGER_TYPE_OPTIONS.find((o) => o.value === type);
	return known ? known.name : String(type);
}

/** Where to find a customer's ID in a messenger (the hint under "ID in the Messenger"). */
export const MESSENGER_ID_HINT =
	"The messenger's own ID for this person, not a username: a Telegram user ID (message.from.id in a Telegram Trigger), a WhatsApp number in digits, the sender ID of an Instagram or Facebook message";
