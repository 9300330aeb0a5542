-- the vehicle wizard saves a vehicle and its private record (V47) in one transaction: two REST
-- calls could leave a new vehicle without its record (a duplicate vin refused the second call),
-- and saving again then created the vehicle twice. runs as the caller: the administrators'
-- policies on both tables decide, as they would for the two calls.

create function public.admin_save_vehicle(vehicle jsonb, record jsonb default '{}', vehicle_id uuid default null)
returns uuid
language plpgsql volatile
as $$
declare
  v public.vehicles := jsonb_populate_record(null::public.vehicles, vehicle);
  r public.vehicle_records := jsonb_populate_record(null::public.vehicle_records, coalesce(record, '{}'));
  saved uuid;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  if vehicle_id is null then
    insert into public.vehicles (name, make, model, year, category, color, license_plate, description, price, daily_rate,
                                 rental_status, features, location, current_location, home_location, specifications,
                                 pricing, images, primary_image)
    values (v.name, v.make, v.model, v.year, coalesce(v.category, 'economic'), v.color, v.license_plate, v.description,
            coalesce(v.price, 0), coalesce(v.daily_rate, 0), coalesce(v.rental_status, 'available'), coalesce(v.features, '{}'),
            v.location, v.current_location, v.home_location, coalesce(v.specifications, '{}'), coalesce(v.pricing, '{}'),
            coalesce(v.images, '[]'), v.primary_image)
    returning id into saved;
  else
    update public.vehicles t
    set name = v.name, make = v.make, model = v.model, year = v.year, category = coalesce(v.category, t.category),
        color = v.color, license_plate = v.license_plate, description = v.description, price = coalesce(v.price, t.price),
        daily_rate = coalesce(v.daily_rate, t.daily_rate), rental_status = coalesce(v.rental_status, t.rental_status),
        features = coalesce(v.features, '{}'), location = v.location, current_location = v.current_location,
        home_location = v.home_location, specifications = coalesce(v.specifications, '{}'),
        pricing = coalesce(v.pricing, '{}'), images = coalesce(v.images, '[]'), primary_image = v.primary_image
    where t.id = admin_save_vehicle.vehicle_id
    returning t.id into saved;
    if saved is null then
      raise exception 'Véhicule introuvable' using errcode = 'P0002';
    end if;
  end if;
  insert into public.vehicle_records (vehicle_id, vin, insurance_policy, registration_expiry, last_service_date, next_service_due)
  values (saved, r.vin, r.insurance_policy, r.registration_expiry, r.last_service_date, r.next_service_due)
  on conflict on constraint vehicle_records_pkey do update
  set vin = excluded.vin, insurance_policy = excluded.insurance_policy, registration_expiry = excluded.registration_expiry,
      last_service_date = excluded.last_service_date, next_service_due = excluded.next_service_due;
  return saved;
end
$$;

revoke execute on function public.admin_save_vehicle(jsonb, jsonb, uuid) from public, anon;
grant execute on function public.admin_save_vehicle(jsonb, jsonb, uuid) to authenticated;
