import { RealtimeScreen } from '@/features/realtime/components/realtime-screen';

export default function RealtimeRoute() {
  return <RealtimeScreen />;
}
