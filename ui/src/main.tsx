import { render } from 'preact';
import { Home } from './home.js';
import { BlockPage } from './block-page.js';
import { TxPage } from './tx-page.js';
import { AccountPage } from './account-page.js';
import { FaucetPage } from './faucet-page.js';
import { Search } from './search.js';
import { useRoute, type Route } from './route.js';

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'block':
      return <BlockPage id={route.id} />;
    case 'tx':
      return <TxPage hash={route.hash} />;
    case 'account':
      return <AccountPage address={route.address} />;
    case 'faucet':
      return <FaucetPage />;
    default:
      return <Home />;
  }
}

function App() {
  const route = useRoute();
  return (
    <>
      <header>
        <h1>svc-node explorer</h1>
        <nav aria-label="Pages">
          <a href="#/" aria-current={route.page === 'home' ? 'page' : undefined}>
            Home
          </a>
          <a href="#/faucet" aria-current={route.page === 'faucet' ? 'page' : undefined}>
            Faucet
          </a>
        </nav>
        <Search />
      </header>
      <main>
        <Page route={route} />
      </main>
    </>
  );
}

// The static "loading" line goes: Preact renders beside what it did not make.
const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
