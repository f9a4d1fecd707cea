import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';

/** The vendored archive of Ethereum's test vectors (see vectors/README.md). */
export const VECTORS_ARCHIVE = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts')
      ? './vectors/ethereum-tests-cancun.tgz'
      : '../../../scripts/conformance/vectors/ethereum-tests-cancun.tgz',
    import.meta.url,
  ),
);

/** One JSON file of the archive, by its path inside it (e.g. `GeneralStateTests/stExample/add11.json`). */
export interface VectorFile {
  readonly path: string;
  readonly json: Record<string, unknown>;
}

/** The archive's JSON files under `folder`, in archive order, read from the archive as it streams. */
export async function readVectorFiles(
  folder: 'GeneralStateTests' | 'TransactionTests',
  archive = VECTORS_ARCHIVE,
): Promise<VectorFile[]> {
  const files: VectorFile[] = [];
  const tar = extract();
  createReadStream(archive).pipe(createGunzip()).pipe(tar);
  for await (const entry of tar) {
    const path = entry.header.name.replace(/^\.\//, '');
    if (entry.header.type !== 'file' || !path.startsWith(`${folder}/`) || !path.endsWith('.json')) {
      entry.resume();
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    files.push({ path, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
  }
  return files;
}
