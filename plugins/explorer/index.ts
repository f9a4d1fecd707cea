import { definePlugin } from '../../kernel/plugin.js';
import { loadBuiltPage, type StaticFile } from './static-files.js';

function serve(file: StaticFile | undefined): Response {
  if (!file)
    return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  // The page's files change only with a new build of the node: revalidated, never stale after an upgrade.
  return new Response(file.body, {
    status: 200,
    headers: { 'content-type': file.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
  });
}

export default definePlugin({
  name: 'explorer',
  version: '0.1.0',
  description: 'The explorer page at /ui/: the chain live, blocks, built from the SDK and served by the node itself',
  init: () => loadBuiltPage(),
  // The page's files are the same for everyone and hold no data: public, also under guardrails, where
  // the page asks for a token and sends it with every call it makes.
  routes: [
    {
      method: 'GET',
      path: '/ui',
      summary: 'the explorer page (redirects to /ui/)',
      access: 'public',
      handler: (c) => c.redirect('/ui/', 301),
    },
    {
      method: 'GET',
      path: '/ui/',
      summary: 'the explorer page (a browser asking for / is sent here)',
      access: 'public',
      home: true,
      handler: (_c, files) => serve(files.get('index.html')),
    },
    {
      method: 'GET',
      path: '/ui/:file',
      summary: 'the explorer page: its script and stylesheet',
      access: 'public',
      handler: (c, files) => serve(files.get(c.req.param('file') ?? '')),
    },
  ],
});
