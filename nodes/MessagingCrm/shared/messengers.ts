import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * Messenger types as the sandbox names them (the API spec does not list them). An expression
 * can send any other value the real API knows.
 */
export const MESSENGER_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Bot Messenger (Telegram)', value: 'telegram' },
	{ name: 'Bot Messenger, Personal Account', value: 'telegram_personal' },
	{ name: 'Business Chat (WhatsApp Cloud)', value: 'whatsapp' },
	{ name: 'Business Chat, Personal Account', value: 'whatsapp_personal' },
	{ name: 'Facebook', value: 'facebook' },
	{ name: 'Instagram', value: 'instagram' },
	{ name: 'MAX', value: 'max' },
	{ name: 'VK', value: 'vk' },
	{ name: 'Web Widget', value: 'web_widget' },
];
