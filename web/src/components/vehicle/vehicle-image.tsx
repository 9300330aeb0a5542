import { CarFront } from 'lucide-react';
import { apiAssetUrl } from '@/lib/format';
import { getApiUrl } from '@/lib/supabase';

export function VehicleImage({ path, alt, className }: { path: string | null; alt: string; className?: string }) {
  const src = apiAssetUrl(getApiUrl(), path);
  if (!src)
    return (
      <div className={`flex items-center justify-center bg-slate-200 ${className ?? ''}`} role="img" aria-label={alt}>
        <CarFront className="h-12 w-12 text-slate-400" aria-hidden="true" />
      </div>
    );
  return <img src={src} alt={alt} loading="lazy" width={400} height={240} className={`object-cover ${className ?? ''}`} />;
}
