/** The company's public details, shown in the footer, contact and about pages. */
export const site = {
  name: 'Kinshasa Prestige Auto',
  tagline: 'Location de véhicules, service protocole et diagnostic automobile à Kinshasa',
  phone: '+243 81 000 0000',
  phoneHref: 'tel:+243810000000',
  supportPhone: '+243 81 000 0000',
  email: 'contact@example.cd',
  address: 'Boulevard du 30 Juin, commune de la Gombe, Kinshasa',
  addressNote: "À proximité de l'hôtel Memling",
  hours: 'Lundi - Samedi : 8h00 - 18h00',
  sundayClosed: 'Dimanche : fermé',
  partnerSince: 2010,
  mapCenter: { lat: -4.3043, lng: 15.3106, zoom: 16 },
} as const;

export const directionsUrl = (destination: string) =>
  `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(destination)}`;
