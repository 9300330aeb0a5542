-- the public `vehicles` bucket of vehicle photos: anyone reads (an <img> sends no key),
-- administrators upload, replace and remove; 10 mb images only (back-office.md section 9).
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('vehicles', 'vehicles', true, 10485760, array['image/*'])
on conflict (id) do nothing;

create policy vehicle_images_read on storage.objects for select to anon, authenticated
  using (bucket_id = 'vehicles');
create policy vehicle_images_insert on storage.objects for insert to authenticated
  with check (bucket_id = 'vehicles' and public.is_admin());
create policy vehicle_images_update on storage.objects for update to authenticated
  using (bucket_id = 'vehicles' and public.is_admin()) with check (bucket_id = 'vehicles' and public.is_admin());
create policy vehicle_images_delete on storage.objects for delete to authenticated
  using (bucket_id = 'vehicles' and public.is_admin());
