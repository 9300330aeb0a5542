/** The details dialog of a booking and, from it or directly, its edit dialog: one pair for every screen that opens bookings. */
import { useState } from 'react';
import type { AdminBooking } from '../types';
import { BookingDetailsDialog } from './booking-details-dialog';
import { BookingEditDialog } from './booking-edit-dialog';

/** `view(b)` / `edit(b)` open a booking; `dialogs` renders them. */
export function useBookingDialogs() {
  const [viewing, setViewing] = useState<AdminBooking | null>(null);
  const [editing, setEditing] = useState<AdminBooking | null>(null);
  const dialogs = (
    <>
      <BookingDetailsDialog
        booking={viewing}
        onClose={() => setViewing(null)}
        onEdit={(b) => {
          setViewing(null);
          setEditing(b);
        }}
      />
      <BookingEditDialog booking={editing} onClose={() => setEditing(null)} />
    </>
  );
  return { view: setViewing, edit: setEditing, dialogs };
}
