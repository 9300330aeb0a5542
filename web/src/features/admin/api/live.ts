/**
 * The back office's live queries: the bookings list and the dashboard follow the four kinds of
 * bookings (a customer's new booking appears without a reload). Administrators receive every
 * row (row-level security with is_admin(), aal2 once they enrolled a second factor); the pages
 * that use these hooks are shown only once that is known.
 */
import { useQueryClient } from '@tanstack/react-query';
import { applyRowChanges, useTableChanges, type LiveStatus, type TableChange } from '@/lib/realtime';
import type { AdminBooking, BookingKind, CustomerRef } from '../types';
import { bookingTables, normalizeBooking } from './bookings';
import { adminKeys } from './keys';

const kindOfTable = new Map(Object.entries(bookingTables).map(([kind, table]) => [table, kind as BookingKind]));
const bookingBindings = Object.values(bookingTables).map((table) => ({ table }));

/**
 * What changes do to the bookings list (the cache of `useAllBookings`): an update of a listed
 * booking is applied in place (its vehicle and customer are kept: a change carries neither),
 * a deleted one leaves; a new booking, an update of one not listed, or a change Realtime could
 * not send whole asks for a refetch (`refetch: true`).
 */
export function adminBookingsAfterChanges(list: AdminBooking[] | undefined, changes: TableChange[]): { list: AdminBooking[] | undefined; refetch: boolean } {
  return applyRowChanges(list, changes, kindOfTable, (previous, change, kind) => {
    // another customer: their profile is not in the list, so only a refetch can show it.
    if (change.new.user_id !== previous.user_id) return undefined;
    const profiles: Record<string, CustomerRef> = previous.user_id ? { [previous.user_id]: previous.customer } : {};
    const updated = normalizeBooking(kind, { ...previous.raw, ...change.new }, profiles);
    return { ...updated, created_at: previous.created_at };
  });
}

/** « Gestion des réservations » live: every booking of the four kinds. */
export function useLiveAdminBookings(): LiveStatus {
  const qc = useQueryClient();
  const key = adminKeys.bookings();
  return useTableChanges({
    name: 'admin-bookings',
    tables: bookingBindings,
    enabled: true,
    onChanges: (changes) => {
      const cached = qc.getQueryData<AdminBooking[]>(key);
      const { list, refetch } = adminBookingsAfterChanges(cached, changes);
      if (list && list !== cached) qc.setQueryData(key, list);
      if (refetch) void qc.invalidateQueries({ queryKey: key });
    },
    onSubscribed: () => void qc.invalidateQueries({ queryKey: key }),
  });
}

/** The dashboard live: its counts and statistics are the database's, so any change refetches it. */
export function useLiveDashboard(): LiveStatus {
  const qc = useQueryClient();
  const refetch = () => void qc.invalidateQueries({ queryKey: adminKeys.dashboard() });
  return useTableChanges({ name: 'admin-dashboard', tables: bookingBindings, enabled: true, onChanges: refetch, onSubscribed: refetch });
}
