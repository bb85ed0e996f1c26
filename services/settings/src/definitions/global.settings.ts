import type { DefinitionModule } from './settingDefinition.ts';

export const settingsDefinition: DefinitionModule = {
  group: {
    id: 'global',
    name: 'Global Settings',
    description: 'Application-wide behaviour: frontend address, mail, login and API documentation',
    icon: 'settings',
    sort_order: 0,
  },
  settings: [
    {
      key: 'global.page_url',
      name: 'Frontend URL',
      defaultValue: 'http://localhost:5173',
      type: 'string',
      description: 'Base URL of the frontend',
      encrypted: false,
      required: true,
    },
    {
      key: 'global.send_mail',
      name: 'Send mail',
      defaultValue: 'false',
      type: 'boolean',
      description: 'Enables email sending',
      encrypted: false,
      required: false,
    },
    {
      key: 'global.enable_login',
      name: 'Enable login',
      defaultValue: 'true',
      type: 'boolean',
      description: 'Enables all login functionality',
      encrypted: false,
      required: false,
    },
    {
      key: 'global.enable_email_registration',
      name: 'Enable email registration',
      defaultValue: 'true',
      type: 'boolean',
      description: 'Enables email registration',
      encrypted: false,
      required: false,
    },
    {
      key: 'global.enable_swagger_docs',
      name: 'Enable API documentation',
      defaultValue: 'true',
      type: 'boolean',
      description: 'Serves the API documentation at /documentation',
      encrypted: false,
      required: false,
    },
  ],
};
