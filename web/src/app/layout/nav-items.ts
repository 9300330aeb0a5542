import { fleetPath, paths } from '@/config/paths';

export interface NavLinkItem {
  label: string;
  to: string;
}
export interface NavMenu {
  label: string;
  items: NavLinkItem[];
}

/** The navigation of section 2.2, shared by the desktop bar and the mobile menu. */
export const navMenus: NavMenu[] = [
  {
    label: 'Notre Flotte',
    items: [
      { label: 'Économique', to: fleetPath('economic') },
      { label: 'Luxe', to: fleetPath('luxury') },
      { label: 'SUV', to: fleetPath('suv') },
      { label: 'Utilitaire', to: fleetPath('utility') },
    ],
  },
  {
    label: 'Services',
    items: [
      { label: 'Location Standard', to: paths.carRental },
      { label: 'Service Premium', to: paths.premium },
      { label: 'Diagnostics', to: paths.diagnostics },
      { label: 'Service Aéroportuaire', to: paths.airport },
      { label: 'Assistance 24/7', to: paths.support },
    ],
  },
  {
    label: 'Réservation',
    items: [
      { label: 'Réserver un véhicule', to: paths.booking },
      { label: 'Service aéroportuaire', to: paths.airport },
      { label: 'Service premium', to: paths.premium },
    ],
  },
];

export const navLinks: NavLinkItem[] = [
  { label: 'Blog', to: paths.blog },
  { label: 'À Propos', to: paths.about },
  { label: 'Contact', to: paths.contact },
];
