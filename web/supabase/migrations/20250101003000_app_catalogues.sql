-- service catalogues of the rental company: the one place prices live. booking triggers read
-- them, so a price sent by a browser is never trusted.

create table public.airport_services (
  code text primary key check (code in ('vip', 'standard', 'baggage')),
  position int not null unique,
  name text not null,
  description text not null,
  price numeric(10, 2) not null check (price >= 0)
);

create table public.diagnostic_services (
  code text primary key check (code in ('mechanical', 'electronic', 'climate', 'reset', 'programming', 'key_programming')),
  position int not null unique,
  name text not null,
  description text not null,
  price numeric(10, 2) not null check (price >= 0)
);

create table public.premium_services (
  code text primary key check (code in ('private_driver', 'vip_concierge', 'business_pack')),
  position int not null unique,
  name text not null,
  description text not null,
  price_per_day numeric(10, 2) not null check (price_per_day >= 0)
);

insert into public.airport_services (code, position, name, description, price) values
  ('vip', 1, 'Service VIP', 'Assistance personnelle complète, accès au salon VIP et passage accéléré (fast-track).', 150),
  ('standard', 2, 'Service Standard', 'Accueil personnalisé et aide aux formalités ; salon VIP inclus pour les vols domestiques. Pour les personnes disposant déjà d''un véhicule.', 50),
  ('baggage', 3, 'Navette aéroport', 'Prise en charge et transport de vos bagages.', 65);

insert into public.diagnostic_services (code, position, name, description, price) values
  ('mechanical', 1, 'Diagnostic Mécanique', 'Contrôle complet du moteur, des freins, de la suspension et de la transmission.', 50),
  ('electronic', 2, 'Diagnostic Électronique', 'Lecture des codes défauts et contrôle des calculateurs embarqués.', 50),
  ('climate', 3, 'Diagnostic Climatisation', 'Contrôle du circuit, de la pression et de l''efficacité de la climatisation.', 35),
  ('reset', 4, 'Service de réinitialisation', 'Remise à zéro des témoins de maintenance et des alertes.', 40),
  ('programming', 5, 'Programmation Mémoire', 'Programmation des modules et mises à jour logicielles.', 60),
  ('key_programming', 6, 'Programmation des clés de luxe', 'Programmation et appairage de clés pour véhicules haut de gamme.', 45);

insert into public.premium_services (code, position, name, description, price_per_day) values
  ('private_driver', 1, 'Service Chauffeur Privé', 'Un chauffeur professionnel à votre disposition toute la journée.', 200),
  ('vip_concierge', 2, 'Conciergerie VIP', 'Réservations, accueil et organisation de vos déplacements.', 150),
  ('business_pack', 3, 'Pack Business', 'Véhicule haut de gamme avec chauffeur et assistance pour vos rendez-vous d''affaires.', 300);
