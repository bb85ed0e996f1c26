import type { DefinitionModule } from './settingDefinition.ts';

export const settingsDefinition: DefinitionModule = {
  group: {
    id: 'audit',
    name: 'Audit Log',
    description: 'How long the audit log keeps its entries',
    icon: 'history',
    sort_order: 10,
  },
  settings: [
    {
      key: 'audit.retention_days',
      name: 'Retention (days)',
      defaultValue: '90',
      type: 'number',
      description: 'Entries older than this many days are removed by the 10-minute schedule (whole days, at least 1)',
      encrypted: false,
      required: true,
      // The audit log's pruning reads it (audit.entry.prune, asked by the 10-minute tick).
      readBy: ['settings'],
    },
  ],
};
