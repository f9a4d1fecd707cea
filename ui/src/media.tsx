import type { ObjectView } from '../../sdk/index.js';

/** An object's bytes as a person sees them: an image, a playable video, else a link. Served by this node from `/ipfs/<cid>`. */
export function Media({ object, thumbnail }: { object: Pick<ObjectView, 'cid' | 'format' | 'mediaType' | 'size'>; thumbnail?: boolean }) {
  const src = `/ipfs/${object.cid}`;
  if (object.format === 'image') return <img src={src} alt={`Stored image ${object.cid} (${object.mediaType})`} loading="lazy" class={thumbnail ? 'thumbnail' : 'media'} />;
  if (object.format === 'video' && !thumbnail) return <video src={src} controls preload="metadata" class="media" aria-label={`Stored video ${object.cid} (${object.mediaType})`} />;
  return (
    <a href={src} download>
      {object.format} ({object.mediaType}, {object.size} bytes)
    </a>
  );
}
