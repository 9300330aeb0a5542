import { useParams, useSearchParams } from 'react-router';
import { PoliciesScreen } from '@/features/policies/components/policies-screen';

export function PoliciesRoute() {
  const { schema = 'public' } = useParams();
  const [search] = useSearchParams();
  return <PoliciesScreen schema={schema} table={search.get('table') ?? undefined} />;
}
