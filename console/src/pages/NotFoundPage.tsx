import { Link } from '../app/router.tsx';
import { Page } from '../components/Page.tsx';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>
        There is no page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </Page>
  );
}
