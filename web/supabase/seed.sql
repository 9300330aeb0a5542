-- demo data of the site: the fleet, the blog article and a few bookings of each kind for the
-- demo customer. the project's seed: it runs on a fresh database at start, and again (it is
-- idempotent: fixed ids and slugs, `on conflict do nothing`) after `server seed` has created the
-- accounts of seed-users.json, whose e-mails it passes as the `seed.<label>_email` settings
-- (`seed.admin_email`, `seed.user_email`); without them the bookings and the administrator's
-- role are left out. prices are set by the triggers. the vehicles' pictures are files of
-- seed/vehicles, uploaded to the `vehicles` bucket (config.toml's objects_path).
-- demo bookings send no mail or text message (the outbox triggers of V63 read app.notify).
select set_config('app.notify', 'off', false);

with v(id, slug, name, make, model, year, category, color, plate, vin, rate, status, description, features, loc, engine, fuel, gearbox, seats, doors, mileage, deposit) as (values
  ('5eed0000-0000-4000-8000-000000000001', 'toyota-corolla', 'Toyota Corolla', 'Toyota', 'Corolla', 2021, 'economic', 'Blanc', '1021-AB-01', 'JTDBR32E100000001', 45, 'available', 'Berline fiable et économique, idéale pour vos déplacements en ville.', array['Climatisation', 'Bluetooth', 'Caméra de recul'], 'Gombe', '4 cylindres', 'Essence', 'Automatique', 5, 4, 42000, 300),
  ('5eed0000-0000-4000-8000-000000000002', 'toyota-yaris', 'Toyota Yaris', 'Toyota', 'Yaris', 2022, 'economic', 'Gris', '1022-AB-01', 'JTDKW3D3000000002', 35, 'available', 'Citadine agile pour circuler facilement dans Kinshasa.', array['Climatisation', 'USB'], 'Limete', '4 cylindres', 'Essence', 'Manuelle', 5, 4, 25000, 250),
  ('5eed0000-0000-4000-8000-000000000003', 'suzuki-swift', 'Suzuki Swift', 'Suzuki', 'Swift', 2021, 'economic', 'Rouge', '1023-AB-01', 'JSAZC72S000000003', 30, 'available', 'Petite, sobre et facile à garer.', array['Climatisation', 'Radio'], 'Ngaliema', '4 cylindres', 'Essence', 'Manuelle', 5, 4, 51000, 200),
  ('5eed0000-0000-4000-8000-000000000004', 'hyundai-accent', 'Hyundai Accent', 'Hyundai', 'Accent', 2020, 'economic', 'Bleu', '1024-AB-01', 'KMHCT41D000000004', 38, 'available', 'Berline confortable au meilleur prix.', array['Climatisation', 'Bluetooth'], 'Gombe', '4 cylindres', 'Essence', 'Automatique', 5, 4, 63000, 250),
  ('5eed0000-0000-4000-8000-000000000005', 'mercedes-classe-s', 'Mercedes-Benz Classe S', 'Mercedes-Benz', 'S 500', 2022, 'luxury', 'Noir', '2031-CD-01', 'WDD2221821A000005', 280, 'available', 'Le summum du confort pour vos rendez-vous d''affaires et cérémonies.', array['Sièges massants', 'Toit panoramique', 'Climatisation 4 zones'], 'Gombe', 'V8', 'Essence', 'Automatique', 5, 4, 18000, 1500),
  ('5eed0000-0000-4000-8000-000000000006', 'bmw-serie-7', 'BMW Série 7', 'BMW', '740Li', 2021, 'luxury', 'Noir', '2032-CD-01', 'WBA7T21070C000006', 260, 'available', 'Limousine élégante avec chauffeur sur demande.', array['Sièges chauffants', 'Écran arrière', 'Son Harman Kardon'], 'Gombe', '6 cylindres', 'Essence', 'Automatique', 5, 4, 26000, 1500),
  ('5eed0000-0000-4000-8000-000000000007', 'lexus-lx', 'Lexus LX 600', 'Lexus', 'LX 600', 2023, 'luxury', 'Blanc nacré', '2033-CD-01', 'JTJHY00W000000007', 320, 'available', 'Prestige et robustesse, à l''aise sur toutes les routes.', array['Cuir', 'Toit ouvrant', 'Réfrigérateur'], 'Gombe', '6 cylindres', 'Essence', 'Automatique', 7, 5, 9000, 2000),
  ('5eed0000-0000-4000-8000-000000000008', 'range-rover-vogue', 'Range Rover Vogue', 'Land Rover', 'Range Rover', 2021, 'luxury', 'Gris anthracite', '2034-CD-01', 'SALGA2AE000000008', 300, 'maintenance', 'SUV de luxe, actuellement en révision.', array['Cuir', 'Suspension pneumatique'], 'Garage Limete', 'V8', 'Diesel', 'Automatique', 5, 5, 48000, 2000),
  ('5eed0000-0000-4000-8000-000000000009', 'toyota-land-cruiser', 'Toyota Land Cruiser 300', 'Toyota', 'Land Cruiser', 2022, 'suv', 'Blanc', '3041-EF-01', 'JTMHV01J000000009', 150, 'available', 'Le 4x4 de référence en RDC, pour la ville comme pour les pistes.', array['4x4', 'Climatisation', 'Bluetooth', 'Attelage'], 'Gombe', '6 cylindres', 'Diesel', 'Automatique', 7, 5, 35000, 1000),
  ('5eed0000-0000-4000-8000-000000000010', 'toyota-prado', 'Toyota Land Cruiser Prado', 'Toyota', 'Prado', 2021, 'suv', 'Argent', '3042-EF-01', 'JTEBU3FJ000000010', 120, 'available', 'Spacieux et endurant, parfait pour les familles.', array['4x4', 'Climatisation', '7 places'], 'Ngaliema', '4 cylindres', 'Diesel', 'Automatique', 7, 5, 57000, 800),
  ('5eed0000-0000-4000-8000-000000000011', 'toyota-rav4', 'Toyota RAV4 Hybride', 'Toyota', 'RAV4', 2023, 'suv', 'Bleu nuit', '3043-EF-01', 'JTMW43FV000000011', 85, 'available', 'SUV hybride sobre et confortable.', array['Climatisation', 'Apple CarPlay', 'Caméra 360°'], 'Gombe', 'Hybride', 'Hybride', 'CVT', 5, 5, 12000, 600),
  ('5eed0000-0000-4000-8000-000000000012', 'nissan-patrol', 'Nissan Patrol', 'Nissan', 'Patrol', 2020, 'suv', 'Noir', '3044-EF-01', 'JN8AY2NY000000012', 130, 'rented', 'Puissant et robuste, pour les longs trajets.', array['4x4', 'Cuir', '8 places'], 'Lubumbashi (mission)', 'V8', 'Essence', 'Automatique', 8, 5, 71000, 900),
  ('5eed0000-0000-4000-8000-000000000013', 'toyota-hiace', 'Toyota Hiace', 'Toyota', 'Hiace', 2020, 'utility', 'Blanc', '4051-GH-01', 'JTFSS22P000000013', 90, 'available', 'Minibus 14 places pour groupes et transferts.', array['Climatisation', '14 places'], 'Limete', '4 cylindres', 'Diesel', 'Manuelle', 14, 4, 88000, 700),
  ('5eed0000-0000-4000-8000-000000000014', 'toyota-hilux', 'Toyota Hilux', 'Toyota', 'Hilux', 2022, 'utility', 'Blanc', '4052-GH-01', 'AHTKB8CD000000014', 80, 'available', 'Pick-up double cabine, charge utile d''une tonne.', array['4x4', 'Benne', 'Climatisation'], 'Kingabwa', '4 cylindres', 'Diesel', 'Manuelle', 5, 4, 40000, 600),
  ('5eed0000-0000-4000-8000-000000000015', 'mitsubishi-l200', 'Mitsubishi L200', 'Mitsubishi', 'L200', 2021, 'utility', 'Gris', '4053-GH-01', 'MMBJNKL3000000015', 70, 'available', 'Pick-up robuste pour le transport de marchandises.', array['4x4', 'Benne'], 'Kingabwa', '4 cylindres', 'Diesel', 'Manuelle', 5, 4, 66000, 500),
  ('5eed0000-0000-4000-8000-000000000016', 'toyota-coaster', 'Toyota Coaster', 'Toyota', 'Coaster', 2019, 'utility', 'Blanc', '4054-GH-01', 'JTGFB518000000016', 160, 'available', 'Autocar 29 places pour mariages, séminaires et excursions.', array['Climatisation', '29 places', 'Soute à bagages'], 'Limete', '6 cylindres', 'Diesel', 'Manuelle', 29, 2, 120000, 1000)
),
fleet as (
insert into public.vehicles (id, name, make, model, year, category, color, license_plate, daily_rate, rental_status,
                             description, features, location, current_location, home_location, specifications, pricing, primary_image)
select id::uuid, name, make, model, year, category, color, plate, rate, status, description, features, 'Gombe, Kinshasa', loc, 'Gombe, Kinshasa',
       jsonb_build_object('engine_type', engine, 'fuel_type', fuel, 'transmission', gearbox, 'seats', seats, 'doors', doors, 'mileage', mileage,
                          'safety_features', jsonb_build_array('ABS', 'Airbags frontaux', 'Contrôle de stabilité'),
                          'comfort_features', jsonb_build_array('Climatisation', 'Bluetooth')),
       jsonb_build_object('daily_rate', rate, 'weekly_discount', 10, 'monthly_discount', 20, 'security_deposit', deposit, 'seasonal_rates', '[]'::jsonb),
       '/storage/v1/object/public/vehicles/' || slug || '.svg'
from v
on conflict (id) do nothing
)
-- the vin is the administrators' (V47).
insert into public.vehicle_records (vehicle_id, vin)
select id::uuid, vin from v
on conflict (vehicle_id) do nothing;

update public.vehicles v
set images = jsonb_build_array(jsonb_build_object('id', 'primary', 'url', v.primary_image, 'title', split_part(v.primary_image, '/', -1), 'is_primary', true, 'order', 0))
where v.id::text like '5eed0000-%' and v.images = '[]';

insert into public.blog_posts (slug, title, excerpt, content, author, category, cover_image, published, published_at) values
  ('louer-une-voiture-a-kinshasa',
   'Louer une voiture à Kinshasa : nos conseils pour bien choisir',
   'Berline, SUV ou utilitaire ? Quelques repères pour choisir le véhicule adapté à vos trajets dans la capitale et au-delà.',
   E'Kinshasa est une ville étendue où les distances se comptent souvent en heures plutôt qu''en kilomètres. Bien choisir son véhicule fait toute la différence.\n\n## En ville\nPour vos déplacements entre la Gombe, Limete et Ngaliema, une berline économique comme la Toyota Corolla offre confort et sobriété.\n\n## Hors des grands axes\nPour rejoindre Kinkole, le Bas-Congo ou les routes moins entretenues, préférez un SUV 4x4 comme le Land Cruiser : garde au sol élevée et fiabilité éprouvée.\n\n## Groupes et marchandises\nMariages, séminaires ou déménagements : nos minibus et pick-up utilitaires sont disponibles à la journée comme au mois.\n\n## Bon à savoir\nÀ partir de 7 jours de location, une remise hebdomadaire s''applique automatiquement ; à partir de 30 jours, c''est la remise mensuelle. Le prix affiché lors de la réservation est exactement celui qui vous sera facturé.',
   'Équipe Kinshasa Prestige Auto', 'Conseils', '/storage/v1/object/public/vehicles/toyota-land-cruiser.svg', true, now())
on conflict (slug) do nothing;

-- bookings of each kind for the demo customer, in different statuses. each id starts with its own
-- eight characters, the reference the site shows (#5EEDB001, #5EEDA001, ...); a database seeded
-- before they did (every reference #5EED0000) has its bookings renamed first.
update public.bookings set id = ('5eed' || right(id::text, 4) || '-0000-4000-8000-000000000000')::uuid
where id::text ~ '^5eed0000-0000-4000-8000-00000000b00[0-9]$';
update public.airport_bookings set id = ('5eed' || right(id::text, 4) || '-0000-4000-8000-000000000000')::uuid
where id::text ~ '^5eed0000-0000-4000-8000-00000000a00[0-9]$';
update public.diagnostic_bookings set id = ('5eed' || right(id::text, 4) || '-0000-4000-8000-000000000000')::uuid
where id::text ~ '^5eed0000-0000-4000-8000-00000000d00[0-9]$';
update public.premium_service_bookings set id = ('5eed' || right(id::text, 4) || '-0000-4000-8000-000000000000')::uuid
where id::text ~ '^5eed0000-0000-4000-8000-00000000c00[0-9]$';

with demo as (select id from auth.users where email = lower(current_setting('seed.user_email', true)))
insert into public.bookings (id, user_id, vehicle_id, start_date, end_date, pickup_location, dropoff_location, booking_status)
select b.id::uuid, demo.id, b.vehicle::uuid, current_date + b.s, current_date + b.e, 'Aéroport de N''djili', 'Gombe', b.status
from demo, (values
  ('5eedb001-0000-4000-8000-000000000000', '5eed0000-0000-4000-8000-000000000009', 5, 8, 'confirmed'),
  ('5eedb002-0000-4000-8000-000000000000', '5eed0000-0000-4000-8000-000000000001', 20, 30, 'pending'),
  ('5eedb003-0000-4000-8000-000000000000', '5eed0000-0000-4000-8000-000000000005', -30, -28, 'completed')
) as b(id, vehicle, s, e, status)
on conflict (id) do nothing;

with demo as (select id from auth.users where email = lower(current_setting('seed.user_email', true)))
insert into public.airport_bookings (id, user_id, service_type, flight_date, flight_time, flight_number, flight_type, passengers, booking_status)
select b.id::uuid, demo.id, b.service, current_date + b.d, b.t::time, b.flight, b.kind, b.pax, b.status
from demo, (values
  ('5eeda001-0000-4000-8000-000000000000', 'vip', 7, '14:30', 'ET863', 'arrival', 2, 'pending'),
  ('5eeda002-0000-4000-8000-000000000000', 'standard', -10, '09:15', 'SN351', 'departure', 1, 'completed')
) as b(id, service, d, t, flight, kind, pax, status)
on conflict (id) do nothing;

with demo as (select id, email from auth.users where email = lower(current_setting('seed.user_email', true)))
insert into public.diagnostic_bookings (id, user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone, booking_status)
select b.id::uuid, demo.id, b.service, current_date + b.d, b.t::time, b.vehicle, demo.email, '+243 81 234 5678', b.status
from demo, (values
  ('5eedd001-0000-4000-8000-000000000000', 'mechanical', 3, '10:00', 'Toyota RAV4 2019', 'confirmed'),
  ('5eedd002-0000-4000-8000-000000000000', 'climate', -5, '15:00', 'Hyundai Tucson', 'cancelled')
) as b(id, service, d, t, vehicle, status)
on conflict (id) do nothing;

with demo as (select u.id, u.email, p.full_name from auth.users u join public.profiles p on p.user_id = u.id
              where u.email = lower(current_setting('seed.user_email', true)))
insert into public.premium_service_bookings (id, user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone, booking_status)
select b.id::uuid, demo.id, b.service, current_date + b.d, b.days, demo.full_name, demo.email, '+243 81 234 5678', b.status
from demo, (values
  ('5eedc001-0000-4000-8000-000000000000', 'private_driver', 12, 3, 'pending'),
  ('5eedc002-0000-4000-8000-000000000000', 'business_pack', -1, 3, 'active')
) as b(id, service, d, days, status)
on conflict (id) do nothing;

-- the administrator of seed-users.json runs the back office.
update public.profiles set role = 'admin'
where email = lower(current_setting('seed.admin_email', true)) and role <> 'admin';

-- back to the default for the rest of this connection's life.
select set_config('app.notify', '', false);
