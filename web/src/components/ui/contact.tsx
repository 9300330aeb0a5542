/**
 * The company's phone number, e-mail and address as the back office's settings give them
 * (`useCompany`), for every page that shows them. A phone number never wraps inside itself. Until
 * the settings arrive the value keeps its place but stays hidden, so no built-in number shows.
 */
import type { ReactNode } from 'react';
import type { LucideIcon } from 'lucide-react';
import { cn } from '@/lib/cn';
import { useCompany, whatsappUrl } from '@/lib/site-settings';

const pending = (known: boolean) => (known ? undefined : 'invisible');

export function CompanyPhone({ className, children }: { className?: string; children?: ReactNode }) {
  const company = useCompany();
  return (
    <a href={company.phoneHref} className={cn('whitespace-nowrap', pending(company.known), className)} data-testid="company-phone" aria-busy={!company.known || undefined}>
      {children}
      {company.phone}
    </a>
  );
}

export function CompanyEmail({ className }: { className?: string }) {
  const company = useCompany();
  return (
    <a href={`mailto:${company.email}`} className={cn(pending(company.known), className)} data-testid="company-email" aria-busy={!company.known || undefined}>
      {company.email}
    </a>
  );
}

export function CompanyAddress({ className }: { className?: string }) {
  const company = useCompany();
  return (
    <span className={cn(pending(company.known), className)} data-testid="company-address">
      {company.address}
    </span>
  );
}

export function CompanyWhatsapp({ className, children = 'WhatsApp' }: { className?: string; children?: ReactNode }) {
  const company = useCompany();
  return (
    <a href={whatsappUrl(company.phone)} className={className} target="_blank" rel="noreferrer" data-testid="whatsapp">
      {children}
    </a>
  );
}

/** One line of contact details: an icon (hidden from screen readers) then its content. */
export type ContactLine = [LucideIcon, ReactNode];

/** Contact lines as a list, each an icon beside its content, styled by where the list stands. */
export function ContactList({ lines, className, itemClassName, iconClassName }: { lines: ContactLine[]; className: string; itemClassName: string; iconClassName: string }) {
  return (
    <ul className={className}>
      {lines.map(([Icon, content], i) => (
        <li key={i} className={itemClassName}>
          <Icon className={iconClassName} aria-hidden="true" />
          {content}
        </li>
      ))}
    </ul>
  );
}
