import { useParams, useSearchParams } from 'react-router';
import { BucketList } from '@/features/storage/components/bucket-list';
import { ObjectBrowser } from '@/features/storage/components/object-browser';
import { S3Keys } from '@/features/storage/components/s3-keys';

export function StorageRoute() {
  const { bucket } = useParams();
  const [search] = useSearchParams();
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[14rem_1fr] md:grid-rows-1">
      <div className="max-h-48 md:max-h-none">
        <BucketList current={bucket} />
      </div>
      {bucket ? <ObjectBrowser key={bucket} bucket={bucket} prefix={search.get('prefix') ?? ''} /> : <p className="p-4 text-sm text-slate-700">Choose a bucket, or make one.</p>}
    </div>
  );
}

export function S3KeysRoute() {
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[14rem_1fr] md:grid-rows-1">
      <div className="max-h-48 md:max-h-none">
        <BucketList />
      </div>
      <S3Keys />
    </div>
  );
}
