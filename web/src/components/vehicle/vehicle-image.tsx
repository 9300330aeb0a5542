import { useState } from 'react';
import { CarFront } from 'lucide-react';
import { apiAssetUrl, thumbnailUrl } from '@/lib/format';
import { getApiUrl } from '@/lib/supabase';

/**
 * A vehicle picture from storage, as an 800 x 480 thumbnail made by the server (the full picture
 * if the thumbnail fails); a drawn placeholder when there is none or it fails to load.
 */
export function VehicleImage({
  path,
  alt,
  className,
  eager = false,
  size = [800, 480],
}: {
  path: string | null;
  alt: string;
  className?: string;
  eager?: boolean;
  /** the thumbnail's width and height (a list's small pictures ask for less) */
  size?: [number, number];
}) {
  const [failures, setFailures] = useState(0);
  const full = apiAssetUrl(getApiUrl(), path);
  const thumbnail = thumbnailUrl(full, size[0], size[1]);
  const src = failures === 0 ? thumbnail : failures === 1 && thumbnail !== full ? full : null;
  if (!src)
    return (
      <div className={`flex items-center justify-center bg-gradient-to-br from-slate-200 to-slate-300 ${className ?? ''}`} role="img" aria-label={alt}>
        <CarFront className="h-14 w-14 text-slate-500" aria-hidden="true" />
      </div>
    );
  return <img src={src} alt={alt} loading={eager ? 'eager' : 'lazy'} fetchPriority={eager ? 'high' : 'auto'} width={400} height={240} onError={() => setFailures((n) => n + 1)} className={`bg-slate-200 object-cover ${className ?? ''}`} />;
}
