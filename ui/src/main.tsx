import { render } from 'preact';
import { Home } from './home.js';
import { BlockPage } from './block-page.js';
import { TxPage } from './tx-page.js';
import { AccountPage } from './account-page.js';
import { ValidatorsPage } from './validators-page.js';
import { ComputePage } from './compute-page.js';
import { JobPage } from './job-page.js';
import { StoragePage } from './storage-page.js';
import { ObjectPage } from './object-page.js';
import { NodePage } from './node-page.js';
import { FaucetPage } from './faucet-page.js';
import { Search } from './search.js';
import { TokenGate } from './token-gate.js';
import { href, SECTIONS, useRoute, type Route } from './route.js';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'block':
      return <BlockPage id={route.id} />;
    case 'tx':
      return <TxPage hash={route.hash} />;
    case 'account':
      return <AccountPage address={route.address} />;
    case 'validators':
      return <ValidatorsPage />;
    case 'compute':
      return <ComputePage />;
    case 'job':
      return <JobPage id={route.id} />;
    case 'storage':
      return <StoragePage />;
    case 'object':
      return <ObjectPage cid={route.cid} />;
    case 'node':
      return <NodePage />;
    case 'faucet':
      return <FaucetPage />;
    default:
      return <Home />;
  }
}

/** The section a page belongs to, for the navigation's current link. */
const SECTION_OF: Partial<Record<Route['page'], Route['page']>> = { job: 'compute', object: 'storage' };

function App() {
  const route = useRoute();
  const section = SECTION_OF[route.page] ?? route.page;
  return (
    <>
      <header>
        <h1>svc-node explorer</h1>
        <nav aria-label="Pages">
          {SECTIONS.map(([page, name]) => (
            <a key={page} href={href.section(page)} aria-current={section === page ? 'page' : undefined}>
              {name}
            </a>
          ))}
        </nav>
        <Search />
      </header>
      <main>
        <TokenGate>
          <Page route={route} />
        </TokenGate>
      </main>
    </>
  );
}

// The static "loading" line goes: Preact renders beside what it did not make.
const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
