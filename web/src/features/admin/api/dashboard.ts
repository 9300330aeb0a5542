import { useQuery } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { BookingStatus, Numeric } from '@/types/database';
import type { AdminStatistics } from '../types';
import { adminKeys } from './keys';

export interface RecentBooking {
  id: string;
  booking_status: BookingStatus;
  total_amount: Numeric;
  created_at: string;
  start_date: string;
  end_date: string;
  customer_name: string | null;
  user_id: string | null;
  vehicles: { name: string; license_plate: string | null } | null;
}

export interface Dashboard {
  users: number;
  vehicles: number;
  stats: AdminStatistics;
  recentBookings: RecentBooking[];
  recentUsers: { id: string; full_name: string | null; email: string | null; created_at: string }[];
  names: Record<string, string>;
}

const LOAD_ERROR = 'Erreur lors du chargement des données';

/** The dashboard: counts, the database's statistics (all four kinds), the latest bookings and sign-ups. */
export async function fetchDashboard(): Promise<Dashboard> {
  const db = supabase();
  const [users, vehicles, stats, recent, recentUsers] = await Promise.all([
    db.from('profiles').select('id', { count: 'exact', head: true }),
    db.from('vehicles').select('id', { count: 'exact', head: true }),
    db.rpc('admin_statistics', { period_days: 30 }),
    db.from('bookings').select('id, booking_status, total_amount, created_at, start_date, end_date, customer_name, user_id, vehicles(name, license_plate), profiles(full_name, email)').order('created_at', { ascending: false }).limit(5),
    db.from('profiles').select('id, user_id, full_name, email, created_at').order('created_at', { ascending: false }).limit(2),
  ]);
  for (const r of [users, vehicles, stats, recent, recentUsers]) if (r.error) throw toAppError(r.error, LOAD_ERROR);
  const bookings = (recent.data ?? []) as unknown as RecentBooking[];
  // the customer's name comes embedded (profiles(...), V65): no second request
  const names: Record<string, string> = {};
  for (const b of bookings) {
    const p = (b as unknown as { profiles?: { full_name: string | null; email: string | null } | null }).profiles;
    if (b.user_id && p) names[b.user_id] = p.full_name || p.email || '';
  }
  return {
    users: users.count ?? 0,
    vehicles: vehicles.count ?? 0,
    stats: stats.data as unknown as AdminStatistics, // jsonb: the shape is admin_statistics's contract
    recentBookings: bookings,
    recentUsers: (recentUsers.data ?? []) as Dashboard['recentUsers'],
    names,
  };
}

export const useDashboard = () => useQuery({ queryKey: adminKeys.dashboard(), queryFn: fetchDashboard });
