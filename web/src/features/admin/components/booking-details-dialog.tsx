import type { ReactNode } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { Button } from '@/components/ui/button';
import { bookingReference, formatDate, formatDateTime, formatPrice } from '@/lib/format';
import type { AdminBooking } from '../types';
import { airportLabels, kindLabels, paymentText } from '../lib/labels';
import { BookingStatusBadge } from './admin-ui';


function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-600">{label}</dt>
      <dd className="font-medium text-slate-900">{children || '—'}</dd>
    </>
  );
}

export function BookingDetailsDialog({ booking, onClose, onEdit }: { booking: AdminBooking | null; onClose: () => void; onEdit: (b: AdminBooking) => void }) {
  const r = booking?.raw ?? {};
  const s = (k: string) => (r[k] == null ? '' : String(r[k]));
  return (
    <Dialog open={!!booking} onClose={onClose} title={booking ? `Détails de la réservation #${bookingReference(booking.id)}` : ''} size="xl">
      {booking && (
        <>
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
            <Row label="Type">{kindLabels[booking.kind]}</Row>
            <Row label="Statut">
              <BookingStatusBadge status={booking.booking_status} />
            </Row>
            <Row label="Client">{booking.customer.full_name || 'Nom non renseigné'}</Row>
            <Row label="Email">{booking.customer.email}</Row>
            <Row label="Téléphone">{booking.customer.phone}</Row>
            <Row label={booking.kind === 'vehicle' ? 'Véhicule' : 'Service'}>{booking.subject}</Row>
            <Row label="Détail">{booking.detail}</Row>
            {booking.kind === 'vehicle' && (
              <>
                <Row label="Période">
                  {formatDate(s('start_date'))} → {formatDate(s('end_date'))}
                </Row>
                <Row label="Prise en charge">
                  {[s('pickup_location'), s('pickup_time').slice(0, 5)].filter(Boolean).join(' à ')}
                </Row>
                <Row label="Restitution">{s('dropoff_location')}</Row>
                <Row label="Personnes">{s('passengers')}</Row>
                <Row label="Permis de conduire">{s('driver_license_number')}</Row>
                <Row label="Paiement prévu">
                  {paymentText(r)}
                </Row>
                <Row label="Demandes spéciales">{s('special_requests')}</Row>
              </>
            )}
            {booking.kind === 'airport' && (
              <>
                <Row label="Service">{airportLabels[s('service_type')] ?? s('service_type')}</Row>
                <Row label="Vol">
                  {s('flight_number')} — {formatDate(s('flight_date'))} à {s('flight_time').slice(0, 5)}
                </Row>
                <Row label="Passagers">{s('passengers')}</Row>
                <Row label="Demandes spéciales">{s('special_requests')}</Row>
              </>
            )}
            {booking.kind === 'diagnostic' && (
              <>
                <Row label="Rendez-vous">
                  {formatDate(s('appointment_date'))} à {s('appointment_time').slice(0, 5)}
                </Row>
                <Row label="Véhicule">{s('vehicle_type')}</Row>
                <Row label="Notes">{s('notes')}</Row>
              </>
            )}
            {booking.kind === 'premium' && (
              <>
                <Row label="Début">{formatDate(s('start_date'))}</Row>
                <Row label="Durée">{s('duration_days')} jour(s)</Row>
                <Row label="Exigences">{s('special_requirements')}</Row>
              </>
            )}
            <Row label="Montant">{formatPrice(booking.total_amount)}</Row>
            <Row label="Créée le">{formatDateTime(booking.created_at)}</Row>
            <Row label="Modifiée le">{formatDateTime(booking.updated_at)}</Row>
          </dl>
          <div className="mt-6 flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              Fermer
            </Button>
            <Button onClick={() => onEdit(booking)}>Modifier</Button>
          </div>
        </>
      )}
    </Dialog>
  );
}
