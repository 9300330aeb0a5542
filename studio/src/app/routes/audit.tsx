import { AuditLog } from '@/features/audit/components/audit-log';

export function AuditRoute() {
  return <AuditLog />;
}
