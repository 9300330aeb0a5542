import { useParams } from 'react-router';
import { ApiScreen } from '@/features/api-docs/components/api-screen';

export default function ApiRoute() {
  const { table } = useParams();
  return <ApiScreen table={table} />;
}
