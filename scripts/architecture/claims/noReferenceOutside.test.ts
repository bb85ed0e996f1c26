import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { noReferenceOutside } from './noReferenceOutside.ts';

describe(noReferenceOutside.name, () => {
  itFinds(
    noReferenceOutside,
    'holds on prose and comments that point only inside the repository, and on code that says #1',
    {
      'README.md': 'See docs/architecture.md, "Contracts".',
      'console/src/theme.ts': "const border = '#111';\n// the specification's statuses, kept\n",
    },
  );

  itFinds(
    noReferenceOutside,
    'fails on a document outside, an issue or rule by number, or a place in the specification',
    {
      'docs/a.md': 'As DESIGN.md says.\nFixed in #28.\nThe queries the brief lists.\n',
      'services/x/src/a.ts': '/** See ../shared/spec for why (issue 28). */\nconst a = 1; // spec rule 6\n',
      'services/x/migrations/0009_x.sql': '-- the spec "Setting group"\n',
    },
    [
      'docs/a.md:1: a document outside the repository: As DESIGN.md says.',
      'docs/a.md:2: an issue by its number: Fixed in #28.',
      'docs/a.md:3: a document outside the repository: The queries the brief lists.',
      'services/x/migrations/0009_x.sql:1: a place in the specification: -- the spec "Setting group"',
      'services/x/src/a.ts:1: a folder outside the repository: /** See ../shared/spec for why (issue 28). */',
      'services/x/src/a.ts:2: a place in the specification: // spec rule 6',
    ],
  );
});
