import { useEffect, type ReactNode } from 'react';
import { useSiteSettings } from '@/lib/site-settings';

const fullTitle = (title: string, company: string) => (title ? `${title} | ${company}` : company);

/** The title of the page being rendered at build time (no document there). */
export const ssrHead = { title: '' };

/** Sets the document title: "<title> | <the company's name in the settings>". */
export function usePageTitle(title: string) {
  const company = useSiteSettings().companyName;
  if (typeof document === 'undefined') ssrHead.title = fullTitle(title, company);
  useEffect(() => {
    document.title = fullTitle(title, company);
  }, [title, company]);
}

export function PageHero({ title, subtitle, children }: { title: string; subtitle?: string; children?: ReactNode }) {
  return (
    <section className="bg-gradient-to-br from-blue-950 via-blue-900 to-slate-900 text-white">
      <div className="mx-auto max-w-7xl px-4 py-12 sm:py-16">
        <h1 className="text-3xl font-extrabold tracking-tight sm:text-4xl">{title}</h1>
        {subtitle && <p className="mt-3 max-w-2xl text-lg text-blue-100">{subtitle}</p>}
        {children}
      </div>
    </section>
  );
}

export function Section({ title, children, id, className }: { title?: string; children: ReactNode; id?: string; className?: string }) {
  return (
    <section id={id} className={className ?? 'mx-auto max-w-7xl px-4 py-10'}>
      {title && <h2 className="mb-6 text-2xl font-bold text-blue-950">{title}</h2>}
      {children}
    </section>
  );
}
