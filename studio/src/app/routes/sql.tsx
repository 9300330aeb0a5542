import { SqlScreen } from '@/features/sql/components/sql-screen';

export default function SqlRoute() {
  return <SqlScreen />;
}
