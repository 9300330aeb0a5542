import { BackupsScreen } from '@/features/backups/components/backups-screen';

export function BackupsRoute() {
  return <BackupsScreen />;
}
