import { Navigate, useParams } from 'react-router';
import { LogsScreen, type LogSource } from '@/features/logs/components/logs-screen';
import { paths } from '@/lib/paths';

const SOURCES: LogSource[] = ['requests', 'postgres', 'auth'];

export default function LogsRoute() {
  const { source } = useParams();
  if (!SOURCES.includes(source as LogSource)) return <Navigate to={paths.logs('requests')} replace />;
  return <LogsScreen source={source as LogSource} />;
}
