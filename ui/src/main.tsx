import { render } from 'preact';
import { Home } from './home.js';

function App() {
  return (
    <>
      <header>
        <h1>svc-node explorer</h1>
        <nav aria-label="Pages">
          <a href="./" aria-current="page">
            Home
          </a>
        </nav>
      </header>
      <main>
        <Home />
      </main>
    </>
  );
}

// The static "loading" line goes: Preact renders beside what it did not make.
const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
