import { z } from 'zod';
import { globalAccess, signedIn, teamAccess } from '../access/subjectAccess.ts';
import { teamIdField, uuidField } from '../ids.ts';
import { defineSubject, emptyRequest } from '../subject.ts';
import { clientActivityPage, clientActivityQuery } from './clientActivity.ts';
import {
  installationCreate,
  installationRef,
  installationStatusView,
  installationUpdate,
  installationView,
  requestLogPage,
  requestLogQuery,
  requestLogView,
  serverLogPage,
  serverLogQuery,
  settingsPatch,
  templateCreate,
  templateUpdate,
  templateView,
  userConfigBody,
  userConfigView,
} from './installationSchemas.ts';

const bySlug = z.object({ slug: z.string().min(1).max(64) }).strict();
const byTeam = z.object({ team_id: teamIdField }).strict();
const deleted = z.object({ deleted: z.literal(true) });
const manageTemplates = globalAccess('mcp_servers.manage');
const viewInstallations = teamAccess('installations.view');
const manageInstallations = teamAccess('installations.manage');

/**
 * Request/reply subjects of the installations service. Templates: any signed-in user reads (team
 * members choose from the catalogue), global admins write. Installations: team members read, team
 * admins write. A user configuration belongs to the member themself.
 */
export const installationSubjects = {
  listTemplates: defineSubject({
    subject: 'installations.template.list',
    service: 'installations',
    access: signedIn,
    description: 'The MCP server catalogue, by slug.',
    request: emptyRequest,
    reply: z.array(templateView),
  }),
  getTemplate: defineSubject({
    subject: 'installations.template.get',
    service: 'installations',
    access: signedIn,
    description: 'One template by slug.',
    request: bySlug,
    reply: templateView,
  }),
  createTemplate: defineSubject({
    subject: 'installations.template.create',
    service: 'installations',
    access: manageTemplates,
    description: 'Adds a template to the catalogue (global admins). conflict when the slug exists.',
    request: templateCreate,
    reply: templateView,
  }),
  updateTemplate: defineSubject({
    subject: 'installations.template.update',
    service: 'installations',
    access: manageTemplates,
    description: 'Changes a template (global admins); satellites serving its installations are told to reconfigure.',
    request: z.object({ slug: z.string().min(1).max(64), changes: templateUpdate }).strict(),
    reply: templateView,
  }),
  deleteTemplate: defineSubject({
    subject: 'installations.template.delete',
    service: 'installations',
    access: manageTemplates,
    description: 'Removes a template (global admins). conflict while installations of it exist.',
    request: bySlug,
    reply: deleted,
  }),
  listInstallations: defineSubject({
    subject: 'installations.installation.list',
    service: 'installations',
    access: viewInstallations,
    description: "A team's installations (team members).",
    request: byTeam,
    reply: z.array(installationView),
  }),
  getInstallation: defineSubject({
    subject: 'installations.installation.get',
    service: 'installations',
    access: viewInstallations,
    description: 'One installation of a team (team members).',
    request: installationRef,
    reply: installationView,
  }),
  createInstallation: defineSubject({
    subject: 'installations.installation.create',
    service: 'installations',
    access: manageInstallations,
    description:
      'Installs a template in a team (team admins); queues configure mcp_installation_created for the satellites serving the team.',
    request: z.object({ team_id: teamIdField, installation: installationCreate }).strict(),
    reply: installationView,
  }),
  updateInstallation: defineSubject({
    subject: 'installations.installation.update',
    service: 'installations',
    access: manageInstallations,
    description: 'Changes the team level of an installation (team admins); queues configure mcp_installation_updated.',
    request: installationRef.extend({ changes: installationUpdate }).strict(),
    reply: installationView,
  }),
  deleteInstallation: defineSubject({
    subject: 'installations.installation.delete',
    service: 'installations',
    access: manageInstallations,
    description: 'Removes an installation and its logs (team admins); queues configure mcp_installation_deleted.',
    request: installationRef,
    reply: deleted,
  }),
  putUserConfig: defineSubject({
    subject: 'installations.user_config.put',
    service: 'installations',
    access: { users: { kind: 'member', team: 'team_id' } },
    description: "Sets the calling member's user level of an installation's configuration.",
    request: installationRef.extend({ config: userConfigBody }).strict(),
    reply: userConfigView,
  }),
  getStatus: defineSubject({
    subject: 'installations.status.get',
    service: 'installations',
    access: viewInstallations,
    description: 'Status, status message and last update of one installation (team members).',
    request: installationRef,
    reply: installationStatusView,
  }),
  listLogs: defineSubject({
    subject: 'installations.logs.list',
    service: 'installations',
    access: viewInstallations,
    description: 'Server log lines of one installation, newest first, with limit/offset (team members).',
    request: installationRef.extend({ query: serverLogQuery }).strict(),
    reply: serverLogPage,
  }),
  listRequests: defineSubject({
    subject: 'installations.requests.list',
    service: 'installations',
    access: viewInstallations,
    description: 'Request logs of one installation, newest first; tool_response only while request logging is on.',
    request: installationRef.extend({ query: requestLogQuery }).strict(),
    reply: requestLogPage,
  }),
  getRequest: defineSubject({
    subject: 'installations.requests.get',
    service: 'installations',
    access: viewInstallations,
    description: 'One request log with its full parameters, and its response when kept and logging is on.',
    request: installationRef.extend({ request_id: uuidField() }).strict(),
    reply: requestLogView,
  }),
  updateSettings: defineSubject({
    subject: 'installations.settings.update',
    service: 'installations',
    access: manageInstallations,
    description:
      "Stores the installation's settings (team admins) and queues configure mcp_installation_updated so satellites apply them.",
    request: installationRef.extend({ settings: settingsPatch }).strict(),
    reply: installationView,
  }),
  listClientActivity: defineSubject({
    subject: 'installations.client_activity.list',
    service: 'installations',
    access: {
      // Every team's sessions for global admins; otherwise the teams the caller belongs to, or the one asked for.
      users: { kind: 'team', permission: 'installations.view', team: 'query.team_id', without_team: 'signed_in' },
    },
    description:
      "Recent MCP client sessions, newest first: of the caller's teams, or of every team and none for global admins.",
    request: z.object({ query: clientActivityQuery }).strict(),
    reply: clientActivityPage,
  }),
} as const;
