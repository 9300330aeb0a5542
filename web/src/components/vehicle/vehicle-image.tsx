import { useState } from 'react';
import { CarFront } from 'lucide-react';
import { apiAssetUrl } from '@/lib/format';
import { getApiUrl } from '@/lib/supabase';

/** A vehicle picture from storage; a drawn placeholder when there is none or it fails to load. */
export function VehicleImage({ path, alt, className, eager = false }: { path: string | null; alt: string; className?: string; eager?: boolean }) {
  const [failed, setFailed] = useState(false);
  const src = apiAssetUrl(getApiUrl(), path);
  if (!src || failed)
    return (
      <div className={`flex items-center justify-center bg-gradient-to-br from-slate-200 to-slate-300 ${className ?? ''}`} role="img" aria-label={alt}>
        <CarFront className="h-14 w-14 text-slate-500" aria-hidden="true" />
      </div>
    );
  return <img src={src} alt={alt} loading={eager ? 'eager' : 'lazy'} fetchPriority={eager ? 'high' : 'auto'} width={400} height={240} onError={() => setFailed(true)} className={`bg-slate-200 object-cover ${className ?? ''}`} />;
}
