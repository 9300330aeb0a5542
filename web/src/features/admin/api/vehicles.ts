import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase, supabaseClient } from '@/lib/supabase';
import { AppError, errorCode, errorMessages, toAppError, type ErrorCode } from '@/lib/errors';
import type { RentalStatus } from '@/types/database';
import type { AdminVehicle, VehicleImage } from '../types';
import { imageProblem, splitVehiclePayload, type VehiclePayload } from '../schemas/vehicle-schema';
import { adminKeys } from './keys';

/** The columns of a vehicle's administrative record (`vehicle_records`, V47). */
const RECORD_COLUMNS = 'vin, insurance_policy, registration_expiry, last_service_date, next_service_due';

/** The whole fleet (administrators see every status) with each vehicle's bookings, newest first. */
export async function fetchVehicles(): Promise<AdminVehicle[]> {
  const { data, error } = await supabase()
    .from('vehicles')
    .select(`*, bookings(id, total_amount, created_at, booking_status), ...vehicle_records(${RECORD_COLUMNS})`)
    .order('created_at', { ascending: false });
  if (error) throw toAppError(error, 'Erreur lors du chargement des véhicules');
  // `images`, `specifications` and `pricing` are jsonb (`Json`), narrowed by AdminVehicle.
  return (data ?? []) as unknown as AdminVehicle[];
}

export async function deleteVehicle(id: string): Promise<void> {
  const { error } = await supabase().from('vehicles').delete().eq('id', id).select('id').single();
  if (error) {
    // a vehicle with rentals is kept by the foreign key: say why.
    if (error.code === '23503') throw new AppError('23503', 'Ce véhicule a des réservations : passez-le plutôt au statut « Retiré ».');
    throw toAppError(error, 'Erreur lors de la suppression');
  }
}

export async function setVehiclesStatus(ids: string[], status: RentalStatus): Promise<void> {
  const { error } = await supabase().from('vehicles').update({ rental_status: status }).in('id', ids);
  if (error) throw toAppError(error, 'Erreur lors de la mise à jour du statut');
}

/**
 * Insert, or update when `id` is given, the vehicle and its record in one transaction
 * (`admin_save_vehicle`, V48); returns its id and name (the list is read again anyway).
 */
export async function saveVehicle(payload: VehiclePayload, id?: string): Promise<SavedVehicle> {
  const { vehicle, record } = splitVehiclePayload(payload);
  const { data, error } = await supabase().rpc('admin_save_vehicle', { vehicle, record, vehicle_id: id });
  if (error) throw toAppError(error, 'Erreur lors de la sauvegarde du véhicule');
  return { id: data as string, name: payload.name };
}

export type SavedVehicle = Pick<AdminVehicle, 'id' | 'name'>;

const extension = (name: string) => {
  const m = /\.([a-z0-9]{1,8})$/i.exec(name);
  return m ? m[1]!.toLowerCase() : 'jpg';
};

/**
 * « Erreur de téléversement : photo.png : <why> » (back-office.md §8: the message, else a generic
 * one): why in French when the storage code is one we know, else the server's own message.
 */
export function uploadErrorMessage(fileName: string, error: unknown): string {
  const code = errorCode(error);
  const own = error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message.trim() : '';
  const why = code !== 'unknown' && code in errorMessages ? errorMessages[code as ErrorCode] : own;
  return why ? `Erreur de téléversement : ${fileName} : ${why}` : `Erreur de téléversement : ${fileName}`;
}

/** Uploads images to the public `vehicles` bucket (vehicle-images/{timestamp}-{index}-{random}.{ext}). */
export async function uploadVehicleImages(files: File[]): Promise<Omit<VehicleImage, 'is_primary' | 'order'>[]> {
  for (const f of files) {
    const problem = imageProblem(f);
    if (problem) throw new AppError('invalid_image', problem);
  }
  const bucket = (await supabaseClient()).storage.from('vehicles');
  const out: Omit<VehicleImage, 'is_primary' | 'order'>[] = [];
  const stamp = Date.now();
  for (const [i, file] of files.entries()) {
    const path = `vehicle-images/${stamp}-${i}-${Math.random().toString(36).slice(2, 10)}.${extension(file.name)}`;
    const { error } = await bucket.upload(path, file, { cacheControl: '3600', upsert: false, contentType: file.type });
    if (error) throw new AppError(errorCode(error), uploadErrorMessage(file.name, error));
    out.push({ id: path, url: bucket.getPublicUrl(path).data.publicUrl, title: file.name });
  }
  return out;
}

export const useAdminVehicles = () => useQuery({ queryKey: adminKeys.vehicles(), queryFn: fetchVehicles });

function useInvalidate() {
  const qc = useQueryClient();
  // the customer fleet pages cache vehicles too.
  return () => Promise.all([qc.invalidateQueries({ queryKey: adminKeys.all }), qc.invalidateQueries({ queryKey: ['vehicles'] })]);
}

export function useDeleteVehicle() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: deleteVehicle, onSuccess: invalidate });
}

export function useSetVehiclesStatus() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (v: { ids: string[]; status: RentalStatus }) => setVehiclesStatus(v.ids, v.status), onSettled: invalidate });
}

export function useSaveVehicle() {
  const invalidate = useInvalidate();
  return useMutation({ mutationFn: (v: { payload: VehiclePayload; id?: string }) => saveVehicle(v.payload, v.id), onSuccess: invalidate });
}

export const useUploadVehicleImages = () => useMutation({ mutationFn: uploadVehicleImages });
