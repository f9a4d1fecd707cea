import type { ObjectView } from '../../sdk/index.js';
import { ProtectedLink, useProtectedUrl } from './protected.js';

/** An object's bytes as a person sees them: an image, a playable video, else a link. Served by this node from `/ipfs/<cid>`. */
export function Media({
  object,
  thumbnail,
}: {
  object: Pick<ObjectView, 'cid' | 'format' | 'mediaType' | 'size'>;
  thumbnail?: boolean;
}) {
  const path = `/ipfs/${object.cid}`;
  const shown = object.format === 'image' || (object.format === 'video' && !thumbnail);
  const src = useProtectedUrl(shown ? path : undefined);
  if (shown && src === undefined) return <p>Loading the {object.format}…</p>;
  if (object.format === 'image')
    return (
      <img
        src={src}
        alt={`Stored object ${object.cid} (${object.mediaType})`}
        loading="lazy"
        class={thumbnail ? 'thumbnail' : 'media'}
      />
    );
  if (object.format === 'video' && !thumbnail)
    return (
      // biome-ignore lint/a11y/useMediaCaption: a stored object is the uploader's bytes; the node has no captions to offer for it.
      <video
        src={src}
        controls
        preload="metadata"
        class="media"
        aria-label={`Stored video ${object.cid} (${object.mediaType})`}
      />
    );
  return (
    <ProtectedLink path={path}>
      {object.format} ({object.mediaType}, {object.size} bytes)
    </ProtectedLink>
  );
}
