import type { ComponentType, ReactNode } from 'react';
import { Button } from './button';
import { formatPrice } from '@/lib/format';

/** A bookable service: icon, name, description, price and the button that books it. */
export function ServiceCard({
  icon: Icon,
  name,
  description,
  price,
  action,
  actionLabel,
  onAction,
}: {
  icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean | 'true' }>;
  name: string;
  description: string | null;
  price: ReactNode;
  /** The button's text ('Réserver', 'Prendre rendez-vous'). */
  action: string;
  /** Its accessible name, naming the service. */
  actionLabel: string;
  onAction: () => void;
}) {
  return (
    <article className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
      <Icon className="h-8 w-8 text-amber-500" aria-hidden="true" />
      <h3 className="mt-3 text-lg font-bold text-blue-950">{name}</h3>
      <p className="mt-2 flex-1 text-sm text-slate-700">{description}</p>
      <p className="mt-4 text-2xl font-extrabold text-blue-950">{price}</p>
      <Button className="mt-4" onClick={onAction} aria-label={actionLabel}>
        {action}
      </Button>
    </article>
  );
}

/** A price with its unit in small print: "300,00 $ par jour". */
export function PerUnit({ amount, unit }: { amount: number | string; unit: string }) {
  return (
    <>
      {formatPrice(amount)} <span className="text-sm font-normal text-slate-600">{unit}</span>
    </>
  );
}
