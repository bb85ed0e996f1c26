import type { DefinitionModule } from './settingDefinition.ts';

export const settingsDefinition: DefinitionModule = {
  group: {
    id: 'repohost-oauth',
    name: 'Code Hosting OAuth',
    description: 'OAuth application used to sign in with the code-hosting provider',
    icon: 'git-branch',
    sort_order: 2,
  },
  settings: [
    {
      key: 'repohost.oauth.client_id',
      name: 'Client ID',
      defaultValue: '',
      type: 'string',
      description: 'OAuth application client id',
      encrypted: false,
      required: false,
    },
    {
      key: 'repohost.oauth.client_secret',
      name: 'Client secret',
      defaultValue: '',
      type: 'string',
      description: 'OAuth application client secret',
      encrypted: true,
      required: false,
    },
    {
      key: 'repohost.oauth.enabled',
      name: 'Enabled',
      defaultValue: 'false',
      type: 'boolean',
      description: 'Offer sign-in with the code-hosting provider',
      encrypted: false,
      required: false,
    },
    {
      key: 'repohost.oauth.callback_url',
      name: 'Callback URL',
      defaultValue: 'http://localhost:3000/api/auth/repohost/callback',
      type: 'string',
      description: 'Where the provider redirects after sign-in',
      encrypted: false,
      required: false,
    },
    {
      key: 'repohost.oauth.scope',
      name: 'Scope',
      defaultValue: 'user:email',
      type: 'string',
      description: 'OAuth scopes requested',
      encrypted: false,
      required: false,
    },
  ],
};
