import { useQueryClient } from '@tanstack/react-query';
import { applyRowChanges, useTableChanges, type LiveStatus, type TableChange } from '@/lib/realtime';
import type { AirportBooking, DiagnosticBooking, PremiumBooking, VehicleBooking } from '@/types/database';
import { bookingTables, myBookingKeys, toMyBookings, type BookingKind, type MyBooking } from './bookings';

const kindOfTable = new Map(Object.entries(bookingTables).map(([kind, table]) => [table, kind as BookingKind]));

/** A row of `kind` as the profile lists it. */
function fromRow(kind: BookingKind, row: Record<string, unknown>): MyBooking | undefined {
  const list =
    kind === 'vehicle'
      ? toMyBookings([row as unknown as VehicleBooking], [], [], [])
      : kind === 'airport'
        ? toMyBookings([], [row as unknown as AirportBooking], [], [])
        : kind === 'diagnostic'
          ? toMyBookings([], [], [row as unknown as DiagnosticBooking], [])
          : toMyBookings([], [], [], [row as unknown as PremiumBooking]);
  return list[0];
}

/**
 * What changes do to the customer's list (the cache of `useMyBookings`): an update of a listed
 * booking (a status an administrator set, dates they changed and the total the database
 * re-priced) is applied in place; a deleted one leaves. A new booking, an update of one not
 * listed yet, or a change Realtime could not send whole asks for a refetch (`refetch: true`):
 * a rental's title is its vehicle's name, which a change does not carry.
 */
export function myBookingsAfterChanges(list: MyBooking[] | undefined, changes: TableChange[]): { list: MyBooking[] | undefined; refetch: boolean } {
  return applyRowChanges(list, changes, kindOfTable, (previous, change, kind) => {
    const updated = fromRow(kind, change.new);
    // the vehicle's name comes from a join; the place in the list from the first read.
    return updated && { ...updated, title: kind === 'vehicle' ? previous.title : updated.title, createdAt: previous.createdAt };
  });
}

/**
 * « Mes réservations » live: the signed-in customer's bookings of the four kinds follow the
 * database (a status set by an administrator appears without a reload). Row-level security
 * sends a customer only their own rows; the filter says so too. Subscribes once `userId` is
 * known (the session's access token goes with the join).
 */
export function useLiveMyBookings(userId: string | undefined): LiveStatus {
  const qc = useQueryClient();
  const key = myBookingKeys.list(userId ?? '');
  return useTableChanges({
    name: 'my-bookings',
    tables: Object.values(bookingTables).map((table) => ({ table, filter: `user_id=eq.${userId ?? ''}` })),
    enabled: !!userId,
    onChanges: (changes) => {
      const cached = qc.getQueryData<MyBooking[]>(key);
      const { list, refetch } = myBookingsAfterChanges(cached, changes);
      if (list && list !== cached) qc.setQueryData(key, list);
      if (refetch) void qc.invalidateQueries({ queryKey: key });
    },
    onSubscribed: () => void qc.invalidateQueries({ queryKey: key }),
  });
}
