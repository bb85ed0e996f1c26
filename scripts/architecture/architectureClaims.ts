import type { Claim } from './claim.ts';
import { everyOwnerKeepsAnAuditOutbox } from './claims/everyOwnerKeepsAnAuditOutbox.ts';
import { everyPublishHasAStableId } from './claims/everyPublishHasAStableId.ts';
import { gatewayHasOneCompositionRoot } from './claims/gatewayHasOneCompositionRoot.ts';
import { lifecycleDrawnAsCoded } from './claims/lifecycleDrawnAsCoded.ts';
import { logFieldsAreSnakeCase } from './claims/logFieldsAreSnakeCase.ts';
import { modulesReachedThroughIndex } from './claims/modulesReachedThroughIndex.ts';
import { namedThingsExist } from './claims/namedThingsExist.ts';
import { noReferenceOutside } from './claims/noReferenceOutside.ts';
import { oneAccessInterpreter } from './claims/oneAccessInterpreter.ts';
import { partsAreTheTree } from './claims/partsAreTheTree.ts';
import { partsTalkAsDrawn } from './claims/partsTalkAsDrawn.ts';
import { publishesAreChecked } from './claims/publishesAreChecked.ts';
import { relaysTakeTheirSubjects } from './claims/relaysTakeTheirSubjects.ts';
import { servicesKeepToTheirTables } from './claims/servicesKeepToTheirTables.ts';
import { streamsAsDefined } from './claims/streamsAsDefined.ts';
import { testsSitWhereTheirKindBelongs } from './claims/testsSitWhereTheirKindBelongs.ts';

/** Every claim `npm run check:architecture` holds the code to, in the order the document makes them. */
export const architectureClaims: Claim[] = [
  partsAreTheTree,
  servicesKeepToTheirTables,
  partsTalkAsDrawn,
  gatewayHasOneCompositionRoot,
  testsSitWhereTheirKindBelongs,
  modulesReachedThroughIndex,
  oneAccessInterpreter,
  relaysTakeTheirSubjects,
  publishesAreChecked,
  everyPublishHasAStableId,
  logFieldsAreSnakeCase,
  streamsAsDefined,
  everyOwnerKeepsAnAuditOutbox,
  lifecycleDrawnAsCoded,
  noReferenceOutside,
  namedThingsExist,
];
